import t from 'tap'
import {call, code, result, world} from '../helpers/world.js'

// One file for every tool of the world: each success path and each error code it documents.

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

t.test('assign_device checks only the roles a model is reserved for: a contractor still gets a company laptop (silently wrong)', async t => {
  const w = world()
  t.equal(code(call(w, 'assign_device', {employee_id: 'E-1030', model: 'macbook-pro-14'})), 'MODEL_NOT_ALLOWED', 'a sales rep gets no engineering laptop')
  t.equal(code(call(w, 'assign_device', {employee_id: 'E-1055', model: 'thinkpad-x1'})), 'ok', 'Kai Jensen is a contractor, which only the grader notices')
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

t.test('grant_access enforces roles with ROLE_NOT_ALLOWED', async t => {
  const w = world()
  t.equal(code(call(w, 'grant_access', {employee_id: 'E-1011', system: 'prod-db'})), 'ROLE_NOT_ALLOWED')
  t.equal(code(call(w, 'grant_access', {employee_id: 'E-1011', system: 'nope'})), 'NOT_FOUND')
  t.equal(code(call(w, 'grant_access', {employee_id: 'E-9999', system: 'email'})), 'NOT_FOUND')
})

t.test('grant_access refuses APPROVAL_REQUIRED only where enforced; elsewhere it grants without approval (silently wrong)', async t => {
  const w = world()
  t.equal(code(call(w, 'grant_access', {employee_id: 'E-1034', system: 'prod-db'})), 'APPROVAL_REQUIRED')
  t.equal(code(call(w, 'grant_access', {employee_id: 'E-1032', system: 'finance-reports'})), 'ok')
  t.equal(w.state.access['E-1032/finance-reports']!.approval, null, 'the grant records that no approval backed it')
})

t.test('request_approval routes to the policy approver, then grant_access records the approval', async t => {
  const w = world()
  const a = result(call(w, 'request_approval', {employee_id: 'E-1034', system: 'prod-db'}))
  t.same(a, {approval_id: 'AP-0301', status: 'approved', approver: 'security'})
  t.equal(result(call(w, 'request_approval', {employee_id: 'E-1032', system: 'finance-reports'})).approver, 'E-1003', 'the manager approves')
  t.equal(result(call(w, 'request_approval', {employee_id: 'E-1034', system: 'prod-db'})).approval_id, 'AP-0303', 'not idempotent: every request is filed')
  t.equal(result(call(w, 'request_approval', {employee_id: 'E-1034', system: 'email'})).status, 'not_required')
  t.equal(code(call(w, 'grant_access', {employee_id: 'E-1034', system: 'prod-db'})), 'ok')
  t.equal(w.state.access['E-1034/prod-db']!.approval, 'AP-0301')
  t.equal(result(call(w, 'grant_access', {employee_id: 'E-1034', system: 'prod-db'})).note, 'already granted')
})

t.test('request_approval fails with ROLE_NOT_ALLOWED, NO_APPROVER or NOT_FOUND', async t => {
  const w = world({set: {'employees.E-1042.manager': null}})
  t.equal(code(call(w, 'request_approval', {employee_id: 'E-1011', system: 'prod-db'})), 'ROLE_NOT_ALLOWED')
  t.equal(code(call(w, 'request_approval', {employee_id: 'E-1042', system: 'finance-reports'})), 'NO_APPROVER')
  t.equal(code(call(w, 'request_approval', {employee_id: 'E-1042', system: 'nope'})), 'NOT_FOUND')
})

t.test('grant_access fails with EMPLOYEE_INACTIVE for a terminated employee', async t => {
  const w = world({set: {'employees.E-1016.status': 'terminated'}})
  t.equal(code(call(w, 'grant_access', {employee_id: 'E-1016', system: 'email'})), 'EMPLOYEE_INACTIVE')
})

t.test('revoke_access revokes an active grant or fails with NOT_FOUND', async t => {
  const w = world()
  t.equal(result(call(w, 'revoke_access', {employee_id: 'E-1020', system: 'crm'})).status, 'revoked')
  t.equal(code(call(w, 'revoke_access', {employee_id: 'E-1020', system: 'crm'})), 'NOT_FOUND')
  t.equal(code(call(w, 'revoke_access', {employee_id: 'E-1020', system: 'prod-db'})), 'NOT_FOUND')
})

t.test('create_ticket opens a ticket; an identical open subject is a DUPLICATE_TICKET, a reworded one is not (silently wrong)', async t => {
  const w = world()
  t.same(result(call(w, 'create_ticket', {subject: 'Keyboard broken', employee_id: 'E-1010', category: 'hardware'})), {ticket_id: 'TCK-0201', status: 'open'})
  t.equal(code(call(w, 'create_ticket', {subject: 'vpn disconnects EVERY hour!', employee_id: 'E-1012'})), 'DUPLICATE_TICKET')
  t.equal(code(call(w, 'create_ticket', {subject: 'VPN keeps dropping', employee_id: 'E-1012', category: 'network'})), 'ok')
  t.equal(code(call(w, 'create_ticket', {subject: 'Hello there', employee_id: 'E-9999'})), 'NOT_FOUND')
})

t.test('with dedupe enforced, create_ticket refuses a second open ticket of the same employee and category', async t => {
  const w = world({set: {'settings.enforce.ticket_dedupe': true}})
  const r = call(w, 'create_ticket', {subject: 'VPN keeps dropping', employee_id: 'E-1012', category: 'network'})
  t.equal(code(r), 'DUPLICATE_TICKET')
  t.match(r.ok ? '' : r.error.message, /TCK-0101/, 'the error names the existing ticket')
})

t.test('update_ticket comments, changes status, marks duplicates, and refuses OPEN_BLOCKERS on resolve', async t => {
  const w = world()
  t.equal(result(call(w, 'update_ticket', {ticket_id: 'TCK-0101', comment: 'still happening'})).status, 'open')
  t.same(w.state.tickets['TCK-0101']!.comments, ['still happening'])
  t.equal(result(call(w, 'update_ticket', {ticket_id: 'TCK-0106', duplicate_of: 'TCK-0101'})).status, 'duplicate')
  t.equal(code(call(w, 'update_ticket', {ticket_id: 'TCK-0101'})), 'INVALID_ARGUMENTS')
  t.equal(code(call(w, 'update_ticket', {ticket_id: 'TCK-0999', comment: 'x'})), 'NOT_FOUND')
  t.equal(code(call(w, 'update_ticket', {ticket_id: 'TCK-0101', duplicate_of: 'TCK-0999'})), 'NOT_FOUND')
  call(w, 'add_blocker', {target_id: 'TCK-0102', reason: 'part on order'})
  t.equal(w.state.tickets['TCK-0102']!.status, 'blocked')
  t.equal(code(call(w, 'update_ticket', {ticket_id: 'TCK-0102', status: 'resolved'})), 'OPEN_BLOCKERS')
})

t.test('add_blocker targets workflows or tickets and fails with NOT_FOUND or ALREADY_COMPLETED', async t => {
  const w = world()
  t.same(result(call(w, 'add_blocker', {target_id: 'WF-1031', reason: 'laptop on order', category: 'hardware'})), {target_id: 'WF-1031', blocker_id: 'BLK-0701'})
  t.equal(w.state.workflows['WF-1031']!.blockers[0]!.status, 'open')
  t.equal(code(call(w, 'add_blocker', {target_id: 'WF-9999', reason: 'x'})), 'NOT_FOUND')
  t.equal(code(call(w, 'add_blocker', {target_id: 'TCK-0104', reason: 'x'})), 'ALREADY_COMPLETED')
  call(w, 'complete_onboarding', {workflow_id: 'WF-1051'})
  t.equal(code(call(w, 'add_blocker', {target_id: 'WF-1051', reason: 'x'})), 'ALREADY_COMPLETED')
})

t.test('escalate records any escalation, even about an unknown employee', async t => {
  const w = world()
  t.same(result(call(w, 'escalate', {reason: 'who is this?', team: 'hr', employee_id: 'E-1099'})), {escalation_id: 'ESC-0601', team: 'hr'})
  t.equal(w.state.escalations['ESC-0601']!.employee, 'E-1099')
  t.equal(code(call(w, 'escalate', {reason: 'x', team: 'facilities'})), 'INVALID_ARGUMENTS')
})

t.test('complete_onboarding closes the workflow and activates the employee, even with open blockers (silently wrong)', async t => {
  const w = world()
  const r = result(call(w, 'complete_onboarding', {employee_id: 'E-1050'}))
  t.same(r, {workflow_id: 'WF-1050', status: 'completed', open_items: 0, open_blockers: 1})
  t.equal(w.state.employees['E-1050']!.status, 'active')
  t.equal(code(call(w, 'complete_onboarding', {workflow_id: 'WF-1050'})), 'ALREADY_COMPLETED')
})

t.test('complete_onboarding refuses with OPEN_BLOCKERS where the company enforces it', async t => {
  const w = world({set: {'settings.enforce.workflow_blockers': true}})
  t.equal(code(call(w, 'complete_onboarding', {workflow_id: 'WF-1050'})), 'OPEN_BLOCKERS')
  t.equal(code(call(w, 'complete_onboarding', {workflow_id: 'WF-1051'})), 'ok')
})

t.test('complete_onboarding fails with NOT_FOUND, WRONG_WORKFLOW or INVALID_ARGUMENTS', async t => {
  const w = world()
  t.equal(code(call(w, 'complete_onboarding', {workflow_id: 'WF-9999'})), 'NOT_FOUND')
  t.equal(code(call(w, 'complete_onboarding', {employee_id: 'E-1010'})), 'NOT_FOUND', 'no onboarding workflow')
  t.equal(code(call(w, 'complete_onboarding', {workflow_id: 'WF-2020'})), 'WRONG_WORKFLOW')
  t.equal(code(call(w, 'complete_onboarding', {workflow_id: 'WF-1031', employee_id: 'E-1030'})), 'INVALID_ARGUMENTS')
  t.equal(code(call(w, 'complete_onboarding', {})), 'INVALID_ARGUMENTS')
})

t.test('complete_offboarding terminates the employee even while items are held, unless OPEN_ITEMS is enforced', async t => {
  const loose = world()
  t.same(result(call(loose, 'complete_offboarding', {employee_id: 'E-1020'})).open_items, 6)
  t.equal(loose.state.employees['E-1020']!.status, 'terminated')
  const strict = world({set: {'settings.enforce.offboarding_items': true}})
  t.equal(code(call(strict, 'complete_offboarding', {workflow_id: 'WF-2023'})), 'OPEN_ITEMS')
  for (const s of ['design-suite', 'email', 'slack']) call(strict, 'revoke_access', {employee_id: 'E-1023', system: s})
  call(strict, 'recover_device', {employee_id: 'E-1023', model: 'macbook-pro-14'})
  t.equal(code(call(strict, 'complete_offboarding', {workflow_id: 'WF-2023'})), 'ok')
  t.equal(code(call(strict, 'complete_offboarding', {workflow_id: 'WF-1031'})), 'WRONG_WORKFLOW')
})

t.test('workflow items turn done as devices and access are provided', async t => {
  const w = world()
  call(w, 'assign_device', {employee_id: 'E-1032', model: 'thinkpad-x1'})
  call(w, 'grant_access', {employee_id: 'E-1032', system: 'email'})
  const wf = result(call(w, 'get_workflow', {workflow_id: 'WF-1032'}))
  t.same(wf.items.map((i: {done: boolean}) => i.done), [true, false, true])
})
