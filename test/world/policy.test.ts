import t from 'tap'
import {call, code, result, world} from '../helpers/world.js'
import {TOOL_SPECS} from '../../src/world/index.js'
import {missingFields, type ResultSchema} from '../../src/knowledge/index.js'

// The facts added in world@2: employment types, leave and delegates, device models per role,
// refusals, and the approvals on record an agent can see.

const onLeave = {'employees.E-1003.leave': {from: '2026-02-23', until: '2026-03-13', delegate: 'E-1012'}}

t.test('a device model reserved for other roles is refused with MODEL_NOT_ALLOWED, and the inventory says who may get it', async t => {
  const w = world()
  t.equal(code(call(w, 'assign_device', {employee_id: 'E-1032', model: 'macbook-pro-14'})), 'MODEL_NOT_ALLOWED', 'an analyst may not get a MacBook Pro')
  t.equal(w.state.devices['macbook-pro-14']!.stock, 5, 'nothing left the stockroom')
  t.equal(code(call(w, 'assign_device', {employee_id: 'E-1031', model: 'macbook-pro-14'})), 'ok', 'an engineer may')
  t.equal(code(call(w, 'assign_device', {employee_id: 'E-1032', model: 'thinkpad-x1'})), 'ok', 'a model for anyone')
  const inv = result(call(w, 'get_inventory', {model: 'macbook-air-13'}))
  t.same(inv.items[0].allowed_roles, ['designer', 'marketer', 'hr-partner', 'manager'])
})

t.test('staff-only systems refuse contractors and interns with EMPLOYMENT_NOT_ALLOWED; the policy says so', async t => {
  const w = world()
  t.equal(code(call(w, 'grant_access', {employee_id: 'E-1057', system: 'finance-reports'})), 'EMPLOYMENT_NOT_ALLOWED')
  t.equal(code(call(w, 'grant_access', {employee_id: 'E-1055', system: 'prod-db'})), 'EMPLOYMENT_NOT_ALLOWED')
  t.equal(code(call(w, 'grant_access', {employee_id: 'E-1055', system: 'github'})), 'ok')
  t.same(result(call(w, 'get_policy', {topic: 'access', system: 'payroll'})).allowed_employment, ['employee'])
  t.same(result(call(w, 'get_policy', {topic: 'access', system: 'email'})).allowed_employment, [])
})

t.test('every approval request files a new approval; the employee record lists those on record', async t => {
  const w = world()
  const before = result(call(w, 'get_employee', {employee_id: 'E-1012'}))
  t.same(before.approvals, [{approval_id: 'AP-0001', system: 'finance-reports', approver: 'E-1003'}], 'Erin Fox holds finance-reports with an approval')
  const again = result(call(w, 'request_approval', {employee_id: 'E-1012', system: 'finance-reports'}))
  t.equal(again.approval_id, 'AP-0301', 'asking again files a second request')
  t.equal(Object.values(w.state.approvals).filter(a => a.employee === 'E-1012' && a.system === 'finance-reports').length, 2)
  t.equal(result(call(w, 'request_approval', {employee_id: 'E-1012', system: 'email'})).status, 'not_required')
})

t.test('a manager on leave: the request names the delegate, who approves when named', async t => {
  const w = world({set: onLeave})
  const r = call(w, 'request_approval', {employee_id: 'E-1032', system: 'finance-reports'})
  t.equal(code(r), 'APPROVER_ON_LEAVE')
  t.match(!r.ok && r.error.message, /E-1003 is on leave until 2026-03-13; E-1012 approves/)
  t.equal(code(call(w, 'request_approval', {employee_id: 'E-1032', system: 'finance-reports', approver_id: 'E-1003'})), 'NOT_AN_APPROVER', 'not the manager while away')
  t.equal(code(call(w, 'request_approval', {employee_id: 'E-1032', system: 'finance-reports', approver_id: 'E-1010'})), 'NOT_AN_APPROVER')
  const ok = result(call(w, 'request_approval', {employee_id: 'E-1032', system: 'finance-reports', approver_id: 'E-1012'}))
  t.same([ok.status, ok.approver], ['approved', 'E-1012'])
  t.equal(code(call(w, 'request_approval', {employee_id: 'E-1012', system: 'payroll'})), 'ok', 'security approvals do not depend on the manager')
  const back = world({set: {'employees.E-1003.leave': {from: '2026-01-05', until: '2026-01-16', delegate: 'E-1012'}}})
  t.equal(result(call(back, 'request_approval', {employee_id: 'E-1032', system: 'finance-reports'})).approver, 'E-1003', 'a leave in the past changes nothing')
  const nobody = world({set: {'employees.E-1003.leave': {from: '2026-02-23', until: '2026-03-13', delegate: null}}})
  t.equal(code(call(nobody, 'request_approval', {employee_id: 'E-1032', system: 'finance-reports'})), 'NO_APPROVER')
})

t.test('deny_request records a refusal and changes nothing else', async t => {
  const w = world()
  const before = w.state
  const r = result(call(w, 'deny_request', {employee_id: 'E-1032', item: 'macbook-pro-14', reason: 'reserved for engineers and designers', target_id: 'WF-1032'}))
  t.same(r, {denial_id: 'DN-0801', status: 'denied'})
  t.same(w.state.denials['DN-0801'], {id: 'DN-0801', employee: 'E-1032', item: 'macbook-pro-14', target: 'WF-1032', reason: 'reserved for engineers and designers', created_at: '2026-03-02T09:00:00.000Z'})
  t.equal(w.state.assignments, before.assignments)
  t.equal(code(call(w, 'deny_request', {employee_id: 'E-9999', reason: 'x'})), 'NOT_FOUND')
  t.equal(code(call(w, 'deny_request', {item: 'x'})), 'INVALID_ARGUMENTS', 'a refusal needs a reason')
})

t.test('search_employees narrows by department (id or name) and role (either spelling)', async t => {
  const w = world()
  const ids = (args: Record<string, unknown>) => result(call(w, 'search_employees', args)).matches.map((m: {id: string}) => m.id)
  t.same(ids({name: 'Sam Lee', department: 'Sales'}), ['E-1045'])
  t.same(ids({name: 'Sam Lee', department: 'engineering'}), ['E-1044'])
  t.same(ids({name: 'Sam Lee', role: 'sales rep'}), ['E-1045'])
  t.same(ids({name: 'Ines Moreau', department: 'People'}), ['E-1043'], 'by the display name')
  t.same(ids({name: 'Sam Lee', department: 'Legal'}), [])
})

t.test('get_employee declares its record: a start date, and a contractor\'s end date, must be set', async t => {
  const spec = TOOL_SPECS.find(s => s.name === 'get_employee')!
  const schema = spec.returns as ResultSchema
  const w = world({set: {'employees.E-1031.start_date': null}})
  t.same(missingFields(result(call(w, 'get_employee', {employee_id: 'E-1031'})), schema), ['start_date'])
  t.same(missingFields(result(call(w, 'get_employee', {employee_id: 'E-1056'})), schema), ['end_date'], 'Lea Schmidt is a contractor with no end date')
  t.same(missingFields(result(call(w, 'get_employee', {employee_id: 'E-1055'})), schema), [])
  t.same(missingFields(result(call(w, 'get_employee', {employee_id: 'E-1001'})), schema), [], 'a top manager has no manager, which is allowed')
  t.notOk(TOOL_SPECS.find(s => s.name === 'assign_device')!.returns, 'tools declare a result schema only where it matters')
})
