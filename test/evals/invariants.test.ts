import t from 'tap'
import {checkInvariant, type Invariant} from '../../src/evals/grader/index.js'
import {buildInitialState} from '../../src/world/index.js'

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
