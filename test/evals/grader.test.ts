import t from 'tap'
import {checkConstraint, checkInvariant, type Constraint, findCollateral, grade, type GradedAction, GRADER_DIGEST, GRADER_VERSION, type GradingSpec, type Invariant} from '../../src/evals/grader/index.js'
import {buildInitialState, World} from '../../src/world/index.js'

const s = buildInitialState({fixture: 'acme', set: {'workflows.WF-1053.blockers.0.status': 'open'}})
type Body<T> = T extends unknown ? Omit<T, 'id'> : never
const check = (inv: Body<Invariant>) => checkInvariant({id: 'x', ...inv} as Invariant, s)

t.test('path invariants: equals, not_equals, one_of, exists', async t => {
  t.ok(check({path: 'employees.E-1031.status', equals: 'pending'}).passed)
  t.notOk(check({path: 'employees.E-1031.status', equals: 'active'}).passed)
  t.ok(check({path: 'employees.E-1031.status', not_equals: 'active'}).passed)
  t.ok(check({path: 'employees.E-1031.status', one_of: ['pending', 'active']}).passed)
  t.ok(check({path: 'employees.E-1031.pending_info', equals: []}).passed, 'deep equality')
  t.ok(check({path: 'access.E-1010/github', exists: true}).passed)
  t.ok(check({path: 'access.E-1031/github', exists: false}).passed)
  t.ok(check({path: 'employees.E-1001.manager', exists: false}).passed, 'null counts as absent')
})

t.test('path invariants: contains and not_contains on strings and lists, min and max', async t => {
  t.ok(check({path: 'tickets.TCK-0101.subject', contains: 'vpn'}).passed, 'case-insensitive substring')
  t.ok(check({path: 'workflows.WF-1031.items', contains: {type: 'device', model: 'macbook-pro-14'}}).passed, 'list element matched partially')
  t.ok(check({path: 'workflows.WF-1053.blockers', contains: {status: 'open'}}).passed)
  t.ok(check({path: 'workflows.WF-1031.items', not_contains: {system: 'prod-db'}}).passed)
  t.ok(check({path: 'devices.thinkpad-x1.stock', min: 1, max: 6}).passed)
  t.notOk(check({path: 'devices.thinkpad-x1.stock', max: 5}).passed)
  t.ok(check({path: 'workflows.WF-1031.items', min: 5}).passed, 'a list compares by length')
})

t.test('a failing path invariant explains itself with a field-level diff', async t => {
  const r = check({path: 'workflows.WF-1031.status', equals: 'completed'})
  t.same(r, {id: 'x', passed: false, message: 'workflows.WF-1031.status should equals "completed", but is "open"', diff: [{path: 'workflows.WF-1031.status', expected: 'completed', actual: 'open'}]})
  const absent = check({path: 'access.E-1031/crm.status', equals: 'active'})
  t.same(absent.diff, [{path: 'access.E-1031/crm.status', expected: 'active', actual: null}])
  t.match(absent.message, /is absent/)
})

t.test('count invariants: exact, min, max, where with operators, nested lists', async t => {
  t.ok(check({collection: 'tickets', where: {employee: 'E-1010'}, count: 2}).passed)
  t.ok(check({collection: 'tickets', where: {status: {one_of: ['open', 'blocked']}}, count: {min: 6}}).passed)
  t.ok(check({collection: 'tickets', where: {subject: {contains: 'monitor'}}, count: {max: 2}}).passed)
  t.ok(check({collection: 'workflows.WF-1053.blockers', where: {status: 'open'}, count: 1}).passed)
  t.ok(check({collection: 'escalations', count: 0}).passed)
  const few = check({collection: 'procurement', where: {employee: 'E-1031'}, count: {min: 1}})
  t.same(few.diff, [{path: 'procurement where {"employee":"E-1031"}', expected: 'at least 1 matching record(s)', actual: 0}])
  const many = check({collection: 'tickets', where: {employee: 'E-1010'}, count: {max: 1}})
  t.same(many.diff?.map(d => d.path), ['tickets.TCK-0102', 'tickets.TCK-0108'], 'every surplus record is named')
  t.notOk(check({collection: 'nope', count: 0}).passed)
})

const initial = buildInitialState({fixture: 'acme', set: {'devices.thinkpad-x1.stock': 0}})
const spec: GradingSpec = {
  scope: {employees: ['E-1041'], models: ['thinkpad-x1'], systems: ['crm', 'email', 'slack']},
  invariants: [
    {id: 'procured', collection: 'procurement', where: {employee: 'E-1041', model: 'thinkpad-x1'}, count: {min: 1}},
    {id: 'open', path: 'workflows.WF-1041.status', equals: 'open'},
  ],
  constraints: [{id: 'stock-first', before: {first: 'get_inventory', then: 'assign_device'}}],
}

function play(calls: [string, Record<string, unknown>][]) {
  const w = new World(initial)
  const actions: GradedAction[] = calls.map(([tool, args]) => {
    const o = w.invoke({tool, arguments: args}).outcome
    return o.ok ? {tool, arguments: args, ok: true} : {tool, arguments: args, ok: false, error: o.error}
  })
  return grade({spec, initial, final: w.state, actions, usage: {tokens: 100, latency_ms: 5, messages: 9}, valid: true})
}

t.test('a correct trajectory passes with a complete score vector', async t => {
  const v = play([['get_inventory', {model: 'thinkpad-x1'}], ['create_procurement_request', {model: 'thinkpad-x1', employee_id: 'E-1041'}], ['add_blocker', {target_id: 'WF-1041', reason: 'on order'}]])
  t.same([v.passed, v.valid, v.outcome], [true, true, 'positive'])
  t.same(v.scores, {success: 1, violations: 0, tool_calls: 3, errors: 0, tokens: 100, latency_ms: 5, trajectory_length: 9})
  t.same(v.grader, {version: GRADER_VERSION, digest: GRADER_DIGEST})
})

t.test('a naive trajectory fails: constraint violated, invariants failed, collateral found, errors counted', async t => {
  const v = play([['assign_device', {employee_id: 'E-1041', model: 'thinkpad-x1'}], ['assign_device', {employee_id: 'E-1041', model: 'latitude-5440'}], ['assign_device', {employee_id: 'E-1030', model: 'latitude-5440'}], ['complete_onboarding', {workflow_id: 'WF-1041'}]])
  t.same([v.passed, v.outcome], [false, 'negative'])
  t.same(v.invariants.map(i => [i.id, i.passed]), [['procured', false], ['open', false]])
  t.same(v.constraint_violations, [{constraint: 'stock-first', message: 'assign_device (call #0, #1, #2) was not preceded by get_inventory'}])
  t.same(v.collateral.map(c => c.path), ['assignments.AS-0501', 'assignments.AS-0502'])
  t.match(v.collateral[0]!.message, /latitude-5440 assigned, but the task only concerns thinkpad-x1/)
  t.match(v.collateral[1]!.message, /created for E-1030, who is outside the task's scope/)
  t.same([v.scores.success, v.scores.errors, v.scores.violations, v.scores.tool_calls], [0, 1, 3, 4])
})

t.test('an invalid episode never passes, and a step limit is a violation', async t => {
  const w = new World(initial)
  const v = grade({spec: {...spec, invariants: [], constraints: []}, initial, final: w.state, actions: [], usage: {tokens: 0, latency_ms: 0, messages: 0}, valid: false, invalid_reason: 'agent crashed'})
  t.same([v.passed, v.valid, v.outcome, v.invalid_reason], [false, false, 'invalid', 'agent crashed'])
  const cut = grade({spec: {...spec, invariants: [], constraints: []}, initial, final: w.state, actions: [], usage: {tokens: 0, latency_ms: 0, messages: 0}, valid: true, stepLimit: 40})
  t.same(cut.constraint_violations, [{constraint: 'max_steps', message: 'the agent was stopped after 40 tool calls'}])
})

t.test('collateral: other employees, systems outside the scope, and reference data', async t => {
  const w = new World(initial)
  w.invoke({tool: 'grant_access', arguments: {employee_id: 'E-1041', system: 'vpn'}})
  w.invoke({tool: 'revoke_access', arguments: {employee_id: 'E-1011', system: 'crm'}})
  w.invoke({tool: 'escalate', arguments: {reason: 'fyi', employee_id: 'E-1011'}})
  const found = findCollateral(initial, w.state, spec.scope)
  t.same(found.map(c => c.path), ['access.E-1011/crm', 'access.E-1041/vpn'], 'escalations are never collateral')
  const tampered = {...w.state, policies: {}}
  t.same(findCollateral(initial, tampered, {employees: ['E-1041', 'E-1011']}).map(c => c.path), ['policies'])
})

t.test('constraints: before, never (with arguments), called, max_calls, max_errors', async t => {
  const acts: GradedAction[] = [
    {tool: 'get_employee', arguments: {employee_id: 'E-1'}, ok: true},
    {tool: 'grant_access', arguments: {system: 'prod-db'}, ok: false, error: {code: 'APPROVAL_REQUIRED', message: ''}},
    {tool: 'grant_access', arguments: {system: 'email'}, ok: true},
  ]
  type Body<T> = T extends unknown ? Omit<T, 'id'> : never
  const c = (x: Body<Constraint>) => checkConstraint({id: 'c', ...x} as Constraint, acts)
  t.ok(c({before: {first: 'get_employee', then: 'grant_access'}}) === undefined)
  t.ok(c({before: {first: 'get_policy', then: 'grant_access'}}))
  t.ok(c({never: 'escalate'}) === undefined)
  t.match(c({never: {tool: 'grant_access', arguments: {system: 'prod-db'}}})?.message, /call #1/)
  t.ok(c({called: 'escalate'}))
  t.ok(c({called: {tool: 'grant_access', min: 2}}) === undefined)
  t.ok(c({max_calls: 2}))
  t.ok(c({max_calls: {tool: 'grant_access', count: 2}}) === undefined)
  t.ok(c({max_errors: 0}))
  t.ok(c({max_errors: 1}) === undefined)
})

t.test('order invariants: one thing strictly before another, and both must have happened', async t => {
  const w = new World(buildInitialState({fixture: 'acme'}))
  w.invoke({tool: 'request_approval', arguments: {employee_id: 'E-1032', system: 'finance-reports'}})
  w.invoke({tool: 'grant_access', arguments: {employee_id: 'E-1032', system: 'finance-reports'}})
  w.invoke({tool: 'grant_access', arguments: {employee_id: 'E-1031', system: 'github'}})
  const inv = (first: object, then: object): Invariant => ({id: 'o', order: {first, then}}) as Invariant
  const approval = {collection: 'approvals', where: {employee: 'E-1032', system: 'finance-reports'}, field: 'requested_at'}
  t.ok(checkInvariant(inv(approval, {path: 'access.E-1032/finance-reports.granted_at'}), w.state).passed)
  const r = checkInvariant(inv({path: 'access.E-1032/finance-reports.granted_at'}, approval), w.state)
  t.notOk(r.passed, 'the other way round')
  t.match(r.message, /is not before/)
  t.notOk(checkInvariant(inv(approval, {path: 'access.E-1040/github.granted_at'}), w.state).passed, 'what never happened is never after')
  t.match(checkInvariant(inv({collection: 'approvals', where: {employee: 'E-9999'}, field: 'requested_at'}, {path: 'access.E-1031/github.granted_at'}), w.state).message, /never happened/)
  const latest = {collection: 'access', where: {status: 'active', employee: {one_of: ['E-1031', 'E-1032']}}, field: 'granted_at', pick: 'latest'}
  t.ok(checkInvariant(inv(approval, latest), w.state).passed, 'latest of a collection')
})

t.test('exactly_one_of and none_of combine other invariants', async t => {
  const denied = {id: 'denied', collection: 'denials', where: {employee: 'E-1012'}, count: {min: 1}}
  const escalated = {id: 'escalated', collection: 'escalations', where: {employee: 'E-1012'}, count: {min: 1}}
  const one = {id: 'one', exactly_one_of: [denied, escalated]} as Invariant
  const none = {id: 'none', none_of: [denied, escalated]} as Invariant
  const w = new World(buildInitialState({fixture: 'acme'}))
  t.notOk(checkInvariant(one, w.state).passed, 'neither')
  t.ok(checkInvariant(none, w.state).passed)
  w.invoke({tool: 'deny_request', arguments: {employee_id: 'E-1012', reason: 'no'}})
  t.ok(checkInvariant(one, w.state).passed)
  const n = checkInvariant(none, w.state)
  t.notOk(n.passed)
  t.match(n.message, /denied does/)
  t.same(n.diff!.map(d => d.path), ['denied'])
  w.invoke({tool: 'escalate', arguments: {employee_id: 'E-1012', reason: 'also'}})
  t.match(checkInvariant(one, w.state).message, /but denied and escalated do/)
})

t.test('denials are never collateral damage, like escalations', async t => {
  const w = new World(s)
  w.invoke({tool: 'deny_request', arguments: {employee_id: 'E-1012', reason: 'no'}})
  t.same(findCollateral(s, w.state, {employees: []}), [])
})
