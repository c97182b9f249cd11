import t from 'tap'
import {ScriptedAgent} from '../../../src/agents/scripted/index.js'
import type {ToolCall, ToolResult} from '../../../src/agents/types.js'
import {SYSTEM_PROMPT} from '../../../src/evals/index.js'
import {buildInitialState, TOOL_SPECS, World, type InitialSpec} from '../../../src/world/index.js'

// The agent is general by construction: it serves every person a task names, searches with the
// qualifiers the task gives, compares problems with existing tickets in their own words, sees a
// required field left empty, and lets a check's result decide the action. Rules with conditions
// speak only when their conditions hold. (docs/scripted-agent.md)

const EXPERT = [
  'If `get_employee` fails with `NOT_FOUND`, call `escalate` and stop.',
  'If `search_employees` returns more than one match, call `escalate` and stop.',
  'If `get_employee` returns pending information, call `escalate` and stop.',
  'If `get_employee` returns a record that contradicts the task, call `escalate` and stop.',
  'Before `create_ticket`, call `search_tickets` and reuse an open ticket with the same subject.',
].join('\n')

async function play(task: string, skill: string, seed = 1, spec: Omit<InitialSpec, 'fixture'> = {}) {
  const w = new World(buildInitialState({fixture: 'acme', ...spec}))
  const calls: ToolCall[] = []
  const out = await new ScriptedAgent().run({system: SYSTEM_PROMPT, skills: [{name: 'onboarding', content: skill}], task, tools: TOOL_SPECS}, async (c): Promise<ToolResult> => {
    calls.push(c)
    return w.invoke(c).outcome
  }, {seed, repetition: 0, maxSteps: 60})
  return {calls, tools: calls.map(c => c.tool), out, state: w.state}
}

t.test('a task naming several people is done for each of them', async t => {
  for (let seed = 0; seed < 4; seed++) {
    const {state} = await play('Please onboard Alice Chen (E-1030) and Dan Evans (E-1031); both start next Monday.', EXPERT, seed)
    for (const e of ['E-1030', 'E-1031']) t.ok(Object.values(state.access).some(g => g.employee === e && g.system === 'email'), `seed ${seed}: ${e} got email`)
  }
  const {calls} = await play('Julia Costa (E-1016) needs access to vpn, and Jonas Weber (E-1011) to slack as well as vpn.', EXPERT)
  const grants = calls.filter(c => c.tool === 'grant_access').map(c => `${c.arguments.employee_id}:${c.arguments.system}`)
  t.same(grants, ['E-1016:vpn', 'E-1011:slack', 'E-1011:vpn'])
})

t.test('"and stop" ends the work on one person, not on the others', async t => {
  const {state, out} = await play('Please give E-1099 and Priya Nair (E-1010) access to slack.', EXPERT)
  t.equal(Object.values(state.escalations).length, 1, 'the unknown id is escalated')
  t.equal(state.access['E-1010/slack']!.status, 'active', 'Priya still gets her access')
  t.match(out.finalAnswer, /Stopped after get_employee failed with NOT_FOUND/)
})

t.test('the qualifiers a task gives narrow the search', async t => {
  const {calls, state} = await play('Sam Lee from Sales needs access to vpn.', EXPERT)
  t.same(calls.find(c => c.tool === 'search_employees')?.arguments, {name: 'Sam Lee', department: 'sales'})
  t.equal(state.access['E-1045/vpn']!.status, 'active', 'the Sam Lee in Sales')
  t.same(Object.values(state.escalations), [], 'no ambiguity left to escalate')
  const bare = await play('Sam Lee needs access to vpn.', EXPERT)
  t.equal(Object.values(bare.state.escalations).length, 1, 'without a qualifier two people match')
})

t.test('an open ticket about the same problem is found by its words, not by a topic list', async t => {
  const ticket = {id: 'TCK-0150', subject: 'Wireless drops in meeting room B', description: '', employee: 'E-1012', category: 'network', priority: 'normal', status: 'open', duplicate_of: null, blockers: [], comments: [], created_at: '2026-02-28T10:00:00.000Z', updated_at: '2026-02-28T10:00:00.000Z'}
  const same = await play('Erin Fox (E-1012) reports that the wireless keeps dropping in meeting room B. Please open a ticket.', EXPERT, 1, {merge: {'tickets.TCK-0150': ticket}})
  t.same(same.state.tickets['TCK-0150']!.comments.length, 1, 'commented on the existing ticket')
  t.notOk(same.tools.includes('create_ticket'))
  const other = await play('Erin Fox (E-1012) says her new headset crackles on every call. Please open a ticket.', EXPERT, 1, {merge: {'tickets.TCK-0150': ticket}})
  t.ok(other.tools.includes('create_ticket'), 'a different problem gets its own ticket')
  t.equal(Object.keys(other.state.tickets).length, 10)
})

t.test('a required field left empty is pending information, read from the tool\'s result schema', async t => {
  const {state, tools} = await play('Dan Evans (E-1031) joins Engineering on Monday. Please onboard him.', EXPERT, 1, {set: {'employees.E-1031.start_date': null}})
  t.equal(Object.values(state.escalations).length, 1)
  t.notOk(tools.includes('assign_device'))
  const contractor = await play('Lea Schmidt (E-1056) joins Marketing as a designer on contract. Please onboard her.', EXPERT)
  t.equal(Object.values(contractor.state.escalations).length, 1, "a contractor's missing end date too")
})

t.test("a check's result decides the action: a failed approval request stops the grant, a retry with the delegate lets it through", async t => {
  const leave = {set: {'employees.E-1003.leave': {from: '2026-02-23', until: '2026-03-13', delegate: 'E-1012'}}}
  const task = 'Grace Hall (E-1032) needs access to finance-reports.'
  const check = 'Before `grant_access`, call `get_policy` and `request_approval` when the policy requires it.'
  const refused = await play(task, check, 1, leave)
  t.same(refused.tools.filter(x => x !== 'search_documents'), ['get_employee', 'get_policy', 'request_approval'], 'no grant after the refused request')
  t.notOk(refused.state.access['E-1032/finance-reports'])
  const retry = await play(task, `${check}\nIf \`request_approval\` fails with \`APPROVER_ON_LEAVE\`, call \`request_approval\`.`, 1, leave)
  const asks = retry.calls.filter(c => c.tool === 'request_approval')
  t.same(asks.map(c => c.arguments.approver_id), [undefined, 'E-1012'], 'the delegate the error named')
  t.equal(retry.state.access['E-1032/finance-reports']!.approval, 'AP-0301')
})

t.test('conditions and exceptions: a rule speaks only where they hold', async t => {
  const restore = {set: {'access.E-1012/finance-reports.status': 'revoked'}}
  const task = 'Erin Fox (E-1012) lost her finance-reports access by mistake; please give her access to finance-reports again.'
  const plain = 'Before `grant_access`, call `get_policy` and `request_approval` when the policy requires it.'
  const again = await play(task, plain, 1, restore)
  t.equal(Object.values(again.state.approvals).filter(a => a.employee === 'E-1012').length, 2, 'without the exception it asks twice')
  const once = await play(task, `${plain.slice(0, -1)}, unless \`get_employee\` shows \`approvals\` includes the \`system\`.`, 1, restore)
  t.equal(Object.values(once.state.approvals).filter(a => a.employee === 'E-1012').length, 1, 'the approval on record stands')
  t.equal(once.state.access['E-1012/finance-reports']!.status, 'active')
  const never = 'Never call `assign_device` when `get_employee` shows `employment_type` is `contractor`.'
  for (const seed of [1, 2, 3]) {
    const contractor = await play('Kai Jensen (E-1055) needs a laptop, model latitude-5440.', never, seed)
    t.notOk(contractor.tools.includes('assign_device'), `seed ${seed}: no company device for a contractor`)
    const staff = await play('Dan Evans (E-1031) needs a laptop, model latitude-5440.', never, seed)
    t.ok(staff.tools.includes('assign_device'), `seed ${seed}: an employee gets one`)
  }
})

t.test('reads inform: a model reserved for other roles is refused before it is tried', async t => {
  const skill = 'Before `assign_device`, call `get_inventory` and only assign a model that is in stock.\nIf `assign_device` fails with `MODEL_NOT_ALLOWED`, call `deny_request`.'
  const {tools, state} = await play('Grace Hall (E-1032) would like a laptop, model macbook-pro-14.', skill)
  t.notOk(tools.includes('assign_device'), 'the inventory showed the model is not for analysts')
  t.same(Object.values(state.denials).map(d => [d.employee, d.item]), [['E-1032', 'macbook-pro-14']])
})
