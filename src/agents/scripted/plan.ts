import {Stop, type Outcome, type Session} from './session.js'
import type {EmployeeView} from './memory.js'

/**
 * The naive plan: identify the person, then do what the task's keywords ask — onboard,
 * offboard, close out, grant access, hand out hardware, log or update a ticket. It makes
 * the obvious calls in the obvious order; everything careful comes from rules and habits.
 */
const KIND: [string, string][] = [['macbook', 'laptop'], ['thinkpad', 'laptop'], ['latitude', 'laptop'], ['iphone', 'phone'], ['monitor', 'monitor'], ['yubikey', 'yubikey']]
const kindOf = (model: string) => KIND.find(([k]) => model.includes(k))?.[1] ?? 'device'
const CATEGORY: Record<string, string> = {vpn: 'network', wifi: 'network', laptop: 'hardware', battery: 'hardware', monitor: 'hardware', phone: 'hardware', keyboard: 'hardware', printer: 'hardware', badge: 'facilities', email: 'accounts', password: 'accounts', crm: 'accounts', github: 'access'}

export async function play(s: Session): Promise<string> {
  const f = s.memory.facts
  const e = await identify(s)
  if (f.intents.has('offboard')) await offboard(s, e)
  else if (f.intents.has('onboard')) await onboard(s, e)
  else if (f.intents.has('complete')) await closeOut(s, e)
  else if (f.intents.has('access')) for (const sys of f.systems) await provisionAccess(s, sys)
  if (f.intents.has('hardware')) {
    if (f.ticketId) s.memory.target = f.ticketId
    for (const model of f.models) await provisionDevice(s, model)
  }
  if (f.intents.has('ticket')) await logTicket(s, e)
  else if (f.ticketId) await closeTicket(s, f.ticketId)
  return `Done. ${s.memory.notes.join(' ')}`.trim()
}

async function identify(s: Session): Promise<EmployeeView> {
  const f = s.memory.facts
  s.memory.situation = 'identity'
  if (f.employeeId) {
    const r = await s.call('get_employee', {employee_id: f.employeeId})
    if (r.ok) return r.result
    if (s.fallback('unknown_employee') === 'give_up' || !f.name) throw new Stop(`I could not find employee ${f.employeeId}.`)
  }
  if (!f.name) throw new Stop('The task names no employee I can look up.')
  const found = await s.call('search_employees', {name: f.name})
  const first = found.ok ? found.result.matches[0] : undefined
  if (!first) throw new Stop(`Nobody named ${f.name} is in the directory.`)
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
  if (r.error.code !== 'OUT_OF_STOCK') return void s.memory.notes.push(`Could not assign ${model}: ${r.error.message}.`)
  if (r.handled) return void s.memory.notes.push(`${model} is out of stock: procurement requested, blocker recorded, escalated.`)
  const choice = s.fallback('shortage')
  if (choice === 'give_up') throw new Stop(`${model} is out of stock, so I could not finish.`)
  if (choice === 'carry_on') return void s.memory.notes.push(`${model} is out of stock.`)
  // substitute: any other model of the same kind that is in stock
  const inv = await s.call('get_inventory', {})
  const alt = inv.ok ? (inv.result.items as {model: string; stock: number}[]).find(i => i.model !== model && i.stock > 0 && kindOf(i.model) === kindOf(model)) : undefined
  if (!alt) return void s.memory.notes.push(`${model} is out of stock.`)
  const sub = await s.withItem({model: alt.model}, () => s.call('assign_device', {model: alt.model}))
  s.memory.notes.push(sub.ok ? `Assigned ${alt.model} instead of ${model}.` : `${model} is out of stock.`)
}

async function provisionAccess(s: Session, system: string): Promise<void> {
  s.memory.situation = 'access'
  s.memory.policy = undefined
  const r = await s.withItem({system}, () => s.call('grant_access', {system}))
  if (r.ok) return void s.memory.notes.push(`Granted ${system}.`)
  if (r.handled) return void s.memory.notes.push(`${system}: ${r.error.code}, escalated.`)
  if (!r.skipped && s.fallback('refused') === 'give_up') throw new Stop(`I could not grant ${system}: ${r.error.message}.`)
  s.memory.notes.push(`Did not grant ${system} (${r.error.code}).`)
}

async function offboard(s: Session, e: EmployeeView): Promise<void> {
  s.memory.situation = 'offboarding'
  const f = s.memory.facts
  if (!openWorkflow(s, e, 'offboarding')) return void s.memory.notes.push(`${e.id} has no open offboarding workflow.`)
  // the naive part: only what the request names
  for (const d of e.devices) {
    if (f.deviceWords.includes(kindOf(d.model))) await s.withItem({model: d.model, assignment_id: d.assignment_id}, () => s.call('recover_device', {assignment_id: d.assignment_id}))
  }
  for (const sys of f.systems) if (e.access.includes(sys)) await s.withItem({system: sys}, () => s.call('revoke_access', {system: sys}))
  await complete(s, 'complete_offboarding')
}

async function logTicket(s: Session, e: EmployeeView): Promise<void> {
  const f = s.memory.facts
  s.memory.situation = 'ticket'
  const topic = f.topic ?? 'request'
  s.memory.ticketDraft = {subject: `${topic === 'vpn' || topic === 'crm' ? topic.toUpperCase() : topic[0]!.toUpperCase() + topic.slice(1)} problem reported by ${e.name}`, description: s.memory.facts.text.slice(0, 400), category: CATEGORY[topic] ?? 'other'}
  const r = await s.call('create_ticket', {})
  if (r.ok) return void s.memory.notes.push(r.result.reused ? `Updated existing ticket ${r.result.ticket_id}.` : `Opened ${r.result.ticket_id}.`)
  if (r.handled) return void s.memory.notes.push(`Updated existing ticket ${s.memory.ticketId}.`)
  throw new Stop(`I could not open a ticket: ${r.error.message}.`)
}

async function closeTicket(s: Session, ticketId: string): Promise<void> {
  s.memory.ticketId = ticketId
  s.memory.update = s.memory.ticketBlocked ? {comment: `Blocked: ${s.memory.notes.join(' ')}`} : {status: 'resolved', comment: s.memory.notes.join(' ') || 'Done.'}
  const r = await s.raw('update_ticket', {ticket_id: ticketId})
  if (r.ok) s.memory.notes.push(`Updated ${ticketId}.`)
}
