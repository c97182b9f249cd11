import type {PersonFacts, TaskFacts} from './task.js'
import {categoryOf, sameProblem, subjectOf, ticketQuery} from './tickets.js'

/** What the agent has learned so far in an episode, and the context of the call at hand. */
export type Situation = 'identity' | 'hardware' | 'access' | 'ticket' | 'onboarding' | 'offboarding'

export interface EmployeeView {
  id: string
  name: string
  role: string
  department: string
  department_name?: string | null
  manager_name: string | null
  employment_type?: string
  pending_info: string[]
  devices: {assignment_id: string; model: string}[]
  access: string[]
  approvals?: {approval_id: string; system: string; approver: string}[]
  workflows: {id: string; type: string; status: string; items: ({type: 'device'; model: string} | {type: 'access'; system: string})[]; open_blockers: number; open_items?: number}[]
}

/** One successful call the agent made: the results its rules' conditions read. */
export interface Seen {
  tool: string
  args: Record<string, unknown>
  result: unknown
}

export interface Memory {
  facts: TaskFacts
  /** the person the agent is working for now (tasks may name several) */
  person: PersonFacts
  employee?: EmployeeView
  workflowId?: string
  /** the device or system being handled */
  item?: {model?: string; system?: string; assignment_id?: string}
  /** the workflow or ticket a blocker or escalation refers to */
  target?: string
  ticketId?: string
  situation: Situation
  reason?: string
  ticketDraft?: {subject: string; description: string; category?: string}
  update?: {status?: string; comment?: string}
  /** last results of the reads that inform a decision */
  policy?: {system?: string; allowed_roles?: string[]; allowed_employment?: string[]; requires_approval?: boolean}
  inventory?: {items?: {model: string; category: string; stock: number; allowed_roles?: string[]}[]}
  tickets?: {id: string; subject: string; status: string; employee: string | null}[]
  /** an employee id the failure at hand named (the delegate of a manager on leave) */
  approver?: string
  blockersAdded: number
  ticketBlocked?: boolean
  /** every successful call, newest last */
  seen: Seen[]
  /** what the final answer reports */
  notes: string[]
}

const TEAM: Record<Situation, string> = {identity: 'hr', hardware: 'it', access: 'security', ticket: 'it', onboarding: 'it', offboarding: 'it'}
const BLOCKER: Record<Situation, string> = {identity: 'information', hardware: 'hardware', access: 'access', ticket: 'other', onboarding: 'other', offboarding: 'other'}
const TOPIC: Record<string, string> = {
  grant_access: 'access', revoke_access: 'access', request_approval: 'access', assign_device: 'hardware', recover_device: 'hardware',
  create_procurement_request: 'hardware', complete_onboarding: 'onboarding', complete_offboarding: 'offboarding', create_ticket: 'tickets', escalate: 'escalation',
}
const OPEN = new Set(['open', 'in_progress', 'blocked'])

/** The enum a parameter schema offers, if any. */
const choices = (schema: unknown): string[] => ((schema as {enum?: unknown[]} | undefined)?.enum ?? []).filter((x): x is string => typeof x === 'string')

/**
 * A value for an argument, by its name, from what the agent knows: the generic argument
 * filler. `schema` is the parameter's JSON Schema (its enum bounds the choice).
 */
export function argumentValue(m: Memory, name: string, tool: string, forTool: string | undefined, schema?: unknown): unknown {
  const p = m.person
  switch (name) {
    case 'employee_id': return m.employee?.id ?? p.employeeId
    case 'model': return m.item?.model
    case 'assignment_id': return m.item?.assignment_id
    case 'system': return tool === 'get_policy' && TOPIC[forTool ?? ''] !== 'access' ? undefined : m.item?.system
    case 'item': return m.item?.model ?? m.item?.system
    case 'approver_id': return m.approver
    case 'workflow_id': return m.workflowId
    case 'target_id': return m.target
    case 'ticket_id': return m.ticketId
    case 'reason': case 'justification': return m.reason ?? `Requested in the task: ${p.name ?? p.employeeId ?? 'unknown employee'}`
    case 'team': return TEAM[m.situation]
    case 'topic': return TOPIC[forTool ?? ''] ?? (m.situation === 'offboarding' ? 'offboarding' : 'onboarding')
    case 'query': return tool === 'search_tickets' ? ticketQuery(p.problem ?? m.ticketDraft?.subject ?? p.text) || undefined : [m.situation, ticketQuery(p.text)].filter(Boolean).join(' ')
    case 'name': return p.name
    case 'department': return tool === 'search_employees' ? p.claims.department : undefined
    case 'role': return tool === 'search_employees' ? p.claims.role : undefined
    case 'subject': return m.ticketDraft?.subject
    case 'description': return m.ticketDraft?.description
    case 'category': return tool === 'create_ticket' ? categoryOf(p.problem ?? p.text, choices(schema)) : tool === 'add_blocker' ? BLOCKER[m.situation] : undefined
    case 'comment': return m.update?.comment
    case 'status': return tool === 'update_ticket' ? m.update?.status : undefined
    case 'quantity': return 1
    default: return undefined
  }
}

/** A ticket draft from the problem the task describes. */
export function draftTicket(p: PersonFacts): Memory['ticketDraft'] {
  return {subject: subjectOf(p.subject ?? p.problem ?? p.text), description: p.text.slice(0, 400)}
}

/** An open ticket of the same person (or of nobody) about the same problem, by the words of its subject. */
export function sameOpenTicket(m: Memory): string | undefined {
  const problem = m.person.problem ?? m.person.text
  const who = m.employee?.id
  return m.tickets?.find(t => OPEN.has(t.status) && (!t.employee || t.employee === who) && sameProblem(problem, t.subject))?.id
}

/** Update memory from a successful result: what the agent now knows. */
export function learn(m: Memory, tool: string, args: Record<string, unknown>, result: any): void {
  m.seen.push({tool, args, result})
  switch (tool) {
    case 'get_employee': m.employee = result; break
    case 'get_policy': m.policy = result; break
    case 'get_inventory': m.inventory = result; break
    case 'search_tickets': m.tickets = result.tickets; break
    case 'add_blocker': if (String(args.target_id).startsWith('WF-')) m.blockersAdded++; else m.ticketBlocked = true; break
    case 'recover_device': if (m.employee) m.employee = {...m.employee, devices: m.employee.devices.filter(d => d.assignment_id !== result.assignment_id)}; break
    case 'revoke_access': if (m.employee) m.employee = {...m.employee, access: m.employee.access.filter(s => s !== args.system)}; break
  }
}

/** Do two calls agree on every primitive argument they both take? (the same person, the same item) */
export function agree(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  for (const [k, x] of Object.entries(a)) {
    const y = b[k]
    if (y === undefined || typeof x === 'object' || typeof y === 'object') continue
    if (x !== y) return false
  }
  return true
}

/** The latest result of `source` about a call with these arguments (what a rule's condition reads). */
export function latestAbout(m: Memory, source: string, args: Record<string, unknown>): unknown {
  for (let i = m.seen.length - 1; i >= 0; i--) {
    const s = m.seen[i]!
    if (s.tool === source && agree(s.args, args)) return s.result
  }
  return undefined
}
