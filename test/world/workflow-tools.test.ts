import t from 'tap'
import {call, code, result, world} from '../helpers/world.js'

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
