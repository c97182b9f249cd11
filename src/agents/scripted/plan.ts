import {Stop, type Outcome, type Session} from './session.js'
import {draftTicket, type EmployeeView, type Memory} from './memory.js'
import type {PersonFacts} from './task.js'

/**
 * The naive plan: for every person the task names, identify them, then do what the task's
 * keywords ask for them — onboard, offboard, close out, grant access, hand out hardware, log
 * or update a ticket. It makes the obvious calls in the obvious order; everything careful
 * comes from rules and habits. "Stop" ends the work on the person at hand.
 */
// plain knowledge of device names, for the naive "take back what the request names"
const KIND: [RegExp, string][] = [
  [/macbook|thinkpad|latitude|elitebook|xps|surface|laptop|notebook|zenbook|ideapad|chromebook/, 'laptop'],
  [/iphone|pixel|galaxy|phone/, 'phone'], [/monitor|display|screen/, 'monitor'], [/yubikey|security-key|token/, 'yubikey'], [/ipad|tablet/, 'tablet'],
]
const kindOf = (model: string) => KIND.find(([re]) => re.test(model))?.[1] ?? 'device'

export async function play(s: Session): Promise<string> {
  const answers: string[] = []
  for (const person of s.memory.facts.people) {
    focus(s.memory, person)
    try {
      await serve(s, person)
    } catch (e) {
      if (!(e instanceof Stop)) throw e
      answers.push(e.answer)
    }
  }
  return [...answers, s.memory.notes.length ? `Done. ${s.memory.notes.join(' ')}` : answers.length ? '' : 'Done.'].filter(Boolean).join(' ')
}

/** Forget the previous person's context; keep what was seen (conditions read it) and the notes. */
function focus(m: Memory, person: PersonFacts): void {
  m.person = person
  m.situation = 'identity'
  for (const k of ['employee', 'workflowId', 'item', 'target', 'ticketId', 'reason', 'ticketDraft', 'update', 'policy', 'inventory', 'tickets', 'approver', 'ticketBlocked'] as const) delete m[k]
  m.blockersAdded = 0
}

async function serve(s: Session, p: PersonFacts): Promise<void> {
  const e = await identify(s, p)
  if (p.intents.has('offboard')) await offboard(s, e)
  else if (p.intents.has('onboard')) await onboard(s, e)
  else if (p.intents.has('complete')) await closeOut(s, e)
  else if (p.intents.has('access')) for (const sys of p.systems) await provisionAccess(s, sys)
  if (p.intents.has('hardware')) {
    if (p.ticketId) s.memory.target = p.ticketId
    for (const model of p.models) await provisionDevice(s, model)
  }
  if (p.intents.has('ticket')) await logTicket(s, e)
  else if (p.ticketId) await closeTicket(s, p.ticketId)
}

async function identify(s: Session, p: PersonFacts): Promise<EmployeeView> {
  s.memory.situation = 'identity'
  if (p.employeeId) {
    const r = await s.call('get_employee', {employee_id: p.employeeId})
    if (r.ok) return r.result
    if (s.fallback('unknown_employee') === 'give_up' || !p.name) throw new Stop(`I could not find employee ${p.employeeId}.`)
  }
  if (!p.name) throw new Stop('The task names no employee I can look up.')
  // the qualifiers the task gives (department, role) narrow the search; a naive agent drops them when nothing matches
  let found = await s.call('search_employees', {name: p.name})
  if (found.ok && !found.result.matches.length && (p.claims.department || p.claims.role)) found = await s.call('search_employees', {name: p.name, department: undefined, role: undefined})
  const first = found.ok ? found.result.matches[0] : undefined
  if (!first) throw new Stop(`Nobody named ${p.name} is in the directory.`)
  const r = await s.call('get_employee', {employee_id: first.id})
  if (!r.ok) throw new Stop(`I could not open the record of ${first.id}.`)
  return r.result
}

function openWorkflow(s: Session, e: EmployeeView, type: string) {
  const wf = e.workflows.find(w => w.type === type && w.status === 'open')
  if (wf) s.memory.workflowId = s.memory.target = wf.id
  return wf
}

async function onboard(s: Session, e: EmployeeView): Promise<void> {
  const wf = openWorkflow(s, e, 'onboarding')
  if (!wf) return void s.memory.notes.push(`${e.id} has no open onboarding workflow.`)
  for (const item of wf.items) {
    if (item.type === 'device' && !e.devices.some(d => d.model === item.model)) await provisionDevice(s, item.model)
    if (item.type === 'access' && !e.access.includes(item.system)) await provisionAccess(s, item.system)
  }
  // devices and systems the task asks for on top of the checklist
  for (const model of s.memory.person.models) if (!wf.items.some(i => i.type === 'device' && i.model === model)) await provisionDevice(s, model)
  for (const system of s.memory.person.systems) if (!wf.items.some(i => i.type === 'access' && i.system === system)) await provisionAccess(s, system)
  await complete(s, 'complete_onboarding')
}

async function closeOut(s: Session, e: EmployeeView): Promise<void> {
  if (!openWorkflow(s, e, 'onboarding')) return void s.memory.notes.push(`${e.id} has no open onboarding workflow.`)
  await complete(s, 'complete_onboarding')
}

async function complete(s: Session, tool: 'complete_onboarding' | 'complete_offboarding'): Promise<void> {
  s.memory.situation = tool === 'complete_onboarding' ? 'onboarding' : 'offboarding'
  const r = await s.call(tool, {workflow_id: s.memory.workflowId})
  s.memory.notes.push(r.ok ? `Closed ${s.memory.workflowId}.` : `Left ${s.memory.workflowId} open (${r.error.message}).`)
}

async function provisionDevice(s: Session, model: string): Promise<void> {
  s.memory.situation = 'hardware'
  const r: Outcome = await s.withItem({model}, () => s.call('assign_device', {model}))
  if (r.ok) return void s.memory.notes.push(`Assigned ${model}.`)
  if (r.handled) return void s.memory.notes.push(`${model}: ${r.error.code}, handled.`)
  const refused = r.error.code !== 'OUT_OF_STOCK' && /NOT_ALLOWED/.test(r.error.code)
  if (r.error.code !== 'OUT_OF_STOCK' && !refused) return void s.memory.notes.push(`Could not assign ${model}: ${r.error.message}.`)
  const choice = s.fallback(refused ? 'model_refused' : 'shortage')
  if (choice === 'give_up') throw new Stop(`${model} could not be assigned (${r.error.code}), so I could not finish.`)
  if (choice === 'carry_on') return void s.memory.notes.push(`${model}: ${r.error.code}.`)
  // substitute: another model of the same category, in stock
  const inv = await s.call('get_inventory', {})
  const items = inv.ok ? (inv.result.items as {model: string; stock: number; category?: string}[]) : []
  const category = items.find(i => i.model === model)?.category ?? kindOf(model)
  const alt = items.find(i => i.model !== model && i.stock > 0 && (i.category ?? kindOf(i.model)) === category)
  if (!alt) return void s.memory.notes.push(`${model}: ${r.error.code}.`)
  const sub = await s.withItem({model: alt.model}, () => s.call('assign_device', {model: alt.model}))
  s.memory.notes.push(sub.ok ? `Assigned ${alt.model} instead of ${model}.` : `${model}: ${r.error.code}.`)
}

async function provisionAccess(s: Session, system: string): Promise<void> {
  s.memory.situation = 'access'
  s.memory.policy = undefined
  const r = await s.withItem({system}, () => s.call('grant_access', {system}))
  if (r.ok) return void s.memory.notes.push(`Granted ${system}.`)
  if (r.handled) return void s.memory.notes.push(`${system}: ${r.error.code}, handled.`)
  if (!r.skipped && s.fallback('refused') === 'give_up') throw new Stop(`I could not grant ${system}: ${r.error.message}.`)
  s.memory.notes.push(`Did not grant ${system} (${r.error.code}).`)
}

async function offboard(s: Session, e: EmployeeView): Promise<void> {
  s.memory.situation = 'offboarding'
  const p = s.memory.person
  if (!openWorkflow(s, e, 'offboarding')) return void s.memory.notes.push(`${e.id} has no open offboarding workflow.`)
  // the naive part: only what the request names
  for (const d of e.devices) {
    if (p.deviceWords.includes(kindOf(d.model)) || p.models.includes(d.model)) await s.withItem({model: d.model, assignment_id: d.assignment_id}, () => s.call('recover_device', {assignment_id: d.assignment_id}))
  }
  for (const sys of p.systems) if (e.access.includes(sys)) await s.withItem({system: sys}, () => s.call('revoke_access', {system: sys}))
  await complete(s, 'complete_offboarding')
}

async function logTicket(s: Session, e: EmployeeView): Promise<void> {
  s.memory.situation = 'ticket'
  s.memory.ticketDraft = draftTicket(s.memory.person)
  const r = await s.call('create_ticket', {})
  if (r.ok) return void s.memory.notes.push(r.result.reused ? `Updated existing ticket ${r.result.ticket_id}.` : `Opened ${r.result.ticket_id} for ${e.name}.`)
  if (r.handled) return void s.memory.notes.push(`Updated existing ticket ${s.memory.ticketId}.`)
  throw new Stop(`I could not open a ticket: ${r.error.message}.`)
}

async function closeTicket(s: Session, ticketId: string): Promise<void> {
  s.memory.ticketId = ticketId
  s.memory.update = s.memory.ticketBlocked ? {comment: `Blocked: ${s.memory.notes.join(' ')}`} : {status: 'resolved', comment: s.memory.notes.join(' ') || 'Done.'}
  const r = await s.raw('update_ticket', {ticket_id: ticketId})
  if (r.ok) s.memory.notes.push(`Updated ${ticketId}.`)
}
