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
