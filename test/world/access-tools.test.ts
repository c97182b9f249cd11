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
