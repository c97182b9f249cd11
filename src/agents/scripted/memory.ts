import type {TaskFacts} from './task.js'

/** What the agent has learned so far in an episode, and the context of the call at hand. */
export type Situation = 'identity' | 'hardware' | 'access' | 'ticket' | 'onboarding' | 'offboarding'

export interface EmployeeView {
  id: string
  name: string
  role: string
  department: string
  manager_name: string | null
  pending_info: string[]
  devices: {assignment_id: string; model: string}[]
  access: string[]
  workflows: {id: string; type: string; status: string; items: ({type: 'device'; model: string} | {type: 'access'; system: string})[]; open_blockers: number}[]
}

export interface Memory {
  facts: TaskFacts
  employee?: EmployeeView
  workflowId?: string
  /** the device or system being handled */
  item?: {model?: string; system?: string; assignment_id?: string}
  /** the workflow or ticket a blocker or escalation refers to */
  target?: string
  ticketId?: string
  situation: Situation
  reason?: string
  ticketDraft?: {subject: string; description: string; category: string}
  update?: {status?: string; comment?: string}
  /** last results of the reads that inform a decision */
  policy?: {system?: string; allowed_roles?: string[]; requires_approval?: boolean}
  inventory?: {items?: {model: string; category: string; stock: number}[]}
  tickets?: {id: string; subject: string; status: string; employee: string | null}[]
  blockersAdded: number
  ticketBlocked?: boolean
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

/** A value for an argument, by its name, from what the agent knows: the generic argument filler. */
export function argumentValue(m: Memory, name: string, tool: string, forTool: string | undefined): unknown {
  switch (name) {
    case 'employee_id': return m.employee?.id ?? m.facts.employeeId
    case 'model': return m.item?.model
    case 'assignment_id': return m.item?.assignment_id
    case 'system': return tool === 'get_policy' && TOPIC[forTool ?? ''] !== 'access' ? undefined : m.item?.system
    case 'workflow_id': return m.workflowId
    case 'target_id': return m.target
    case 'ticket_id': return m.ticketId
    case 'reason': case 'justification': return m.reason ?? `Requested in the task: ${m.facts.name ?? m.facts.employeeId ?? 'unknown employee'}`
    case 'team': return TEAM[m.situation]
    case 'topic': return TOPIC[forTool ?? ''] ?? (m.situation === 'offboarding' ? 'offboarding' : 'onboarding')
    case 'query': return tool === 'search_tickets' ? m.facts.topic ?? m.ticketDraft?.subject : [m.situation, m.facts.topic].filter(Boolean).join(' ')
    case 'name': return m.facts.name
    case 'subject': return m.ticketDraft?.subject
    case 'description': return m.ticketDraft?.description
    case 'category': return tool === 'create_ticket' ? m.ticketDraft?.category : tool === 'add_blocker' ? BLOCKER[m.situation] : undefined
    case 'comment': return m.update?.comment
    case 'status': return tool === 'update_ticket' ? m.update?.status : undefined
    case 'quantity': return 1
    default: return undefined
  }
}

/** An open ticket about the same problem for the same person ("the same subject", loosely). */
export function sameOpenTicket(m: Memory): string | undefined {
  const topic = m.facts.topic
  const who = m.employee?.id
  return m.tickets?.find(t => OPEN.has(t.status) && (!t.employee || t.employee === who) && topic !== undefined && t.subject.toLowerCase().includes(topic))?.id
}

/** Update memory from a successful result: what the agent now knows. */
export function learn(m: Memory, tool: string, args: Record<string, unknown>, result: any): void {
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
