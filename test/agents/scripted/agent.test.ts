import t from 'tap'
import {parseTask, ScriptedAgent} from '../../../src/agents/scripted/index.js'
import type {AgentInput, ToolCall, ToolResult} from '../../../src/agents/types.js'
import {SYSTEM_PROMPT} from '../../../src/evals/index.js'
import {buildInitialState, TOOL_SPECS, World} from '../../../src/world/index.js'

const TASK = 'Zara Ahmed (E-1041) starts Monday in Sales as a sales rep. Please onboard her and close it out when everything is in place.'
const world = () => new World(buildInitialState({fixture: 'acme', set: {'devices.thinkpad-x1.stock': 0}}))

async function play(skill: string, seed: number, tools = TOOL_SPECS) {
  const w = world()
  const calls: ToolCall[] = []
  const input: AgentInput = {system: SYSTEM_PROMPT, skills: skill ? [{name: 'onboarding', content: skill}] : [], task: TASK, tools}
  const out = await new ScriptedAgent().run(input, async (c): Promise<ToolResult> => {
    calls.push(c)
    return w.invoke(c).outcome
  }, {seed, repetition: 0, maxSteps: 40})
  return {calls: calls.map(c => c.tool), out, w}
}

t.test('without rules, habits vary with the seed: some runs check stock first, some do not', async t => {
  const checked = new Set<boolean>()
  for (let seed = 0; seed < 16; seed++) {
    const {calls} = await play('', seed)
    const [read, assign] = [calls.indexOf('get_inventory'), calls.indexOf('assign_device')]
    checked.add(read >= 0 && (assign < 0 || read < assign))
  }
  t.same([...checked].sort(), [false, true])
})

t.test('a rule in the skill is followed on every seed', async t => {
  const skill = [
    'Before `assign_device`, call `get_inventory` and only assign a model that is in stock.',
    'If `assign_device` fails with `OUT_OF_STOCK`, call `create_procurement_request`, then `add_blocker`, then `escalate`.',
    'Never call `complete_onboarding` while the workflow has open blockers.',
  ].join('\n')
  for (let seed = 0; seed < 12; seed++) {
    const {calls, w} = await play(skill, seed)
    t.notOk(calls.includes('assign_device'), `seed ${seed}: no assignment of an out-of-stock model`)
    t.ok(calls.indexOf('create_procurement_request') < calls.indexOf('add_blocker') && calls.indexOf('add_blocker') < calls.indexOf('escalate'))
    t.notOk(calls.includes('complete_onboarding'))
    t.equal(w.state.workflows['WF-1041']!.status, 'open')
  }
})

t.test('the same seed and input give the same calls, messages and usage', async t => {
  const a = await play('', 5)
  const b = await play('', 5)
  t.same(a.calls, b.calls)
  t.same(a.out, b.out)
  t.equal(a.out.messages[0]!.role, 'system')
  t.equal(a.out.messages[1]!.content, TASK)
  t.ok(a.out.usage.tokensIn > 0 && a.out.usage.tokensOut > 0)
})

t.test('it only calls tools it was given, and rules about missing tools are inert', async t => {
  const without = TOOL_SPECS.filter(s => s.name !== 'get_inventory' && s.name !== 'escalate')
  for (let seed = 0; seed < 8; seed++) {
    const {calls} = await play('Before `assign_device`, call `get_inventory` and only assign a model that is in stock.', seed, without)
    t.notOk(calls.includes('get_inventory') || calls.includes('escalate'), `seed ${seed}`)
  }
})

t.test('onboarding requests: id, name, claims about department, role and manager', async t => {
  const f = parseTask('Hi IT, Dan Evans (E-1031) joins the Engineering team on Monday as a software engineer. He reports to Maria Lopez.').people
  t.equal(f.length, 1, 'the manager is not a person the task is about')
  t.same([...f[0]!.intents], ['onboard'])
  t.same([f[0]!.employeeId, f[0]!.name], ['E-1031', 'Dan Evans'])
  t.same(f[0]!.claims, {manager: 'Maria Lopez', department: 'engineering', departments: ['engineering'], role: 'software engineer'})
  t.equal(parseTask('Felix Wagner joins as a security analyst.').people[0]!.claims.role, 'security analyst')
  t.equal(parseTask('Mia Wong joins as a developer.').people[0]!.claims.role, 'engineer', 'plain synonyms name the role id')
})

t.test('close-out, offboarding, access, hardware and ticket requests', async t => {
  const one = (text: string) => parseTask(text).people[0]!
  t.same([...one('Please mark her onboarding as complete.').intents], ['complete'])
  const off = one('Bob Martin leaves the company on Friday. Please offboard him: collect his laptop and revoke his VPN access.')
  t.same([[...off.intents], off.deviceWords, off.systems], [['offboard'], ['laptop'], ['vpn']])
  const acc = one('Erin Fox needs access to payroll and prod-db for the audit.')
  t.same([[...acc.intents], acc.systems], [['access'], ['payroll', 'prod-db']])
  const hw = one('Ticket TCK-0102: give her a replacement laptop, model macbook-pro-14, and update the ticket.')
  t.same([[...hw.intents], hw.models, hw.ticketId], [['hardware'], ['macbook-pro-14'], 'TCK-0102'])
  const tk = one('Erin Fox says her VPN keeps dropping. Please open a ticket for it.')
  t.same([[...tk.intents], tk.problem], [['ticket'], 'Erin Fox says her VPN keeps dropping.'])
  const team = one('Jonas Weber cannot log into the CRM again. Please log a ticket for the helpdesk.')
  t.equal(team.subject, 'Jonas Weber cannot log into the CRM again.', 'a ticket "for the helpdesk" names a team, not the problem')
  const named = one('Bob Martin (E-1020) leaves on Friday. Please offboard him, and open a ticket for facilities to collect his badge.')
  t.equal(named.subject, 'facilities to collect his badge')
})
