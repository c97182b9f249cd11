import t from 'tap'
import {call, code, result, world} from '../helpers/world.js'

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
