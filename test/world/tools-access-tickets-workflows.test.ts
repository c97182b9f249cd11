import t from 'tap'
import {call, code, result, world} from '../helpers/world.js'

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
  t.equal(result(call(w, 'request_approval', {employee_id: 'E-1034', system: 'prod-db'})).approval_id, 'AP-0301', 'idempotent')
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
