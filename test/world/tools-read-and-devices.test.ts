import t from 'tap'
import {call, code, result, world} from '../helpers/world.js'

t.test('get_employee returns the record, holdings and workflows, or NOT_FOUND', async t => {
  const w = world()
  const e = result(call(w, 'get_employee', {employee_id: 'E-1031'}))
  t.equal(e.name, 'Dan Evans')
  t.equal(e.manager_name, 'Maria Lopez')
  t.same(e.devices, [])
  t.equal(e.workflows[0].id, 'WF-1031')
  t.equal(e.workflows[0].open_items, 5)
  const held = result(call(w, 'get_employee', {employee_id: 'E-1020'}))
  t.same(held.devices.map((d: {model: string}) => d.model), ['thinkpad-x1', 'iphone-15'])
  t.equal(code(call(w, 'get_employee', {employee_id: 'E-9999'})), 'NOT_FOUND')
})

t.test('every tool rejects malformed arguments with INVALID_ARGUMENTS and an unknown tool with UNKNOWN_TOOL', async t => {
  const w = world()
  t.equal(code(call(w, 'get_employee', {})), 'INVALID_ARGUMENTS')
  t.equal(code(call(w, 'get_employee', {employee_id: 'alice'})), 'INVALID_ARGUMENTS')
  t.equal(code(call(w, 'assign_device', {employee_id: 'E-1031', model: 'thinkpad-x1', colour: 'red'})), 'INVALID_ARGUMENTS')
  t.equal(code(call(w, 'search_employees', {})), 'INVALID_ARGUMENTS')
  t.equal(code(call(w, 'teleport', {})), 'UNKNOWN_TOOL')
})

t.test('search_employees prefers exact names and falls back to shared first or last names', async t => {
  const w = world()
  t.same(result(call(w, 'search_employees', {name: 'Alice Chen'})).matches.map((m: {id: string}) => m.id), ['E-1030'])
  t.same(result(call(w, 'search_employees', {name: 'Sam Lee'})).matches.map((m: {id: string}) => m.id), ['E-1044', 'E-1045'])
  t.same(result(call(w, 'search_employees', {name: 'Kofi Mensa'})).matches.map((m: {id: string}) => m.id), ['E-1035'], 'fuzzy: shares a first name')
  t.same(result(call(w, 'search_employees', {name: 'Marta Silva'})).matches, [])
  t.equal(result(call(w, 'search_employees', {department: 'security', status: 'active'})).matches.length, 1)
})

t.test('get_policy returns a system policy, a topic, or NOT_FOUND', async t => {
  const w = world()
  const p = result(call(w, 'get_policy', {topic: 'access', system: 'finance-reports'}))
  t.same([p.requires_approval, p.approver, p.allowed_roles], [true, 'manager', ['analyst', 'manager']])
  t.notOk('enforced' in p, 'technical enforcement is not part of the written policy')
  t.equal(result(call(w, 'get_policy', {topic: 'hardware'})).rules.substitutions, false)
  t.equal(result(call(w, 'get_policy', {topic: 'access'})).systems.length, 10)
  t.equal(code(call(w, 'get_policy', {topic: 'access', system: 'mainframe'})), 'NOT_FOUND')
  t.equal(code(call(w, 'get_policy', {topic: 'weather'})), 'INVALID_ARGUMENTS')
})

t.test('get_inventory, search_documents, search_tickets and get_workflow read without changing the state', async t => {
  const w = world()
  const before = w.digest()
  t.equal(result(call(w, 'get_inventory', {model: 'thinkpad-x1'})).items[0].stock, 6)
  t.equal(result(call(w, 'get_inventory', {category: 'phone'})).items.length, 1)
  t.equal(code(call(w, 'get_inventory', {model: 'zx-81'})), 'NOT_FOUND')
  t.equal(result(call(w, 'search_documents', {query: 'out of stock procurement'})).documents[0].id, 'DOC-02')
  t.same(result(call(w, 'search_tickets', {query: 'vpn', employee_id: 'E-1012'})).tickets.map((x: {id: string}) => x.id), ['TCK-0101'])
  const wf = result(call(w, 'get_workflow', {workflow_id: 'WF-1050'}))
  t.same([wf.open_items, wf.open_blockers], [0, 1])
  t.equal(code(call(w, 'get_workflow', {workflow_id: 'WF-0001'})), 'NOT_FOUND')
  t.equal(w.digest(), before)
})

t.test('assign_device hands out stock and fails with OUT_OF_STOCK, NOT_FOUND or EMPLOYEE_INACTIVE', async t => {
  const w = world({set: {'devices.iphone-15.stock': 0, 'employees.E-1016.status': 'terminated'}})
  const a = result(call(w, 'assign_device', {employee_id: 'E-1031', model: 'macbook-pro-14'}))
  t.same(a, {assignment_id: 'AS-0501', employee: 'E-1031', model: 'macbook-pro-14', remaining_stock: 4})
  t.equal(w.state.devices['macbook-pro-14']!.stock, 4)
  t.equal(code(call(w, 'assign_device', {employee_id: 'E-1031', model: 'iphone-15'})), 'OUT_OF_STOCK')
  t.equal(code(call(w, 'assign_device', {employee_id: 'E-9999', model: 'thinkpad-x1'})), 'NOT_FOUND')
  t.equal(code(call(w, 'assign_device', {employee_id: 'E-1031', model: 'abacus'})), 'NOT_FOUND')
  t.equal(code(call(w, 'assign_device', {employee_id: 'E-1016', model: 'thinkpad-x1'})), 'EMPLOYEE_INACTIVE')
})

t.test('assign_device does not check the hardware policy: any in-stock model goes to anyone (silently wrong)', async t => {
  const w = world()
  t.equal(code(call(w, 'assign_device', {employee_id: 'E-1030', model: 'macbook-pro-14'})), 'ok', 'a sales rep gets an engineering laptop')
})

t.test('recover_device returns a held device to stock, by model or assignment id, or fails with NOT_FOUND', async t => {
  const w = world()
  const stock = w.state.devices['iphone-15']!.stock
  t.equal(result(call(w, 'recover_device', {employee_id: 'E-1020', model: 'iphone-15'})).status, 'returned')
  t.equal(w.state.devices['iphone-15']!.stock, stock + 1)
  t.equal(code(call(w, 'recover_device', {employee_id: 'E-1020', model: 'iphone-15'})), 'NOT_FOUND', 'already returned')
  t.equal(code(call(w, 'recover_device', {employee_id: 'E-1020'})), 'INVALID_ARGUMENTS')
  const id = result(call(w, 'get_employee', {employee_id: 'E-1020'})).devices[0].assignment_id
  t.equal(code(call(w, 'recover_device', {employee_id: 'E-1020', assignment_id: id})), 'ok')
})

t.test('create_procurement_request records a request and refuses a DUPLICATE_REQUEST or an unknown model', async t => {
  const w = world()
  t.same(result(call(w, 'create_procurement_request', {model: 'thinkpad-x1', employee_id: 'E-1041'})), {request_id: 'PR-0401', model: 'thinkpad-x1', status: 'requested'})
  t.equal(code(call(w, 'create_procurement_request', {model: 'thinkpad-x1', employee_id: 'E-1041'})), 'DUPLICATE_REQUEST')
  t.equal(code(call(w, 'create_procurement_request', {model: 'thinkpad-x1'})), 'ok', 'a stock request without an employee')
  t.equal(code(call(w, 'create_procurement_request', {model: 'abacus'})), 'NOT_FOUND')
  t.equal(code(call(w, 'create_procurement_request', {model: 'thinkpad-x1', employee_id: 'E-9999'})), 'NOT_FOUND')
})

t.test('a failed call leaves the state unchanged', async t => {
  const w = world({set: {'devices.iphone-15.stock': 0}})
  const before = w.state
  call(w, 'assign_device', {employee_id: 'E-1031', model: 'iphone-15'})
  t.equal(w.state, before)
})
