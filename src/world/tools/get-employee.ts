import {ARG, defineTool, fail, ok} from './define.js'
import {employeeView} from '../views.js'

export const getEmployee = defineTool<{employee_id: string}>({
  name: 'get_employee',
  kind: 'read',
  description: 'Look up one employee by id. Returns the HR record (name, department, manager, role, status, start date, and `pending_info`: fields HR has not confirmed yet), the devices and access systems the employee currently holds, and their onboarding/offboarding workflows with checklist items and blockers. Fails with NOT_FOUND when no employee has that id.',
  parameters: {required: ['employee_id'], properties: {employee_id: ARG.employee_id}},
  reads: ['employees', 'departments', 'assignments', 'access', 'workflows'],
  writes: [],
  errors: ['NOT_FOUND'],
  latencyMs: 90,
  run(tx, {employee_id}) {
    const e = tx.get('employees')[employee_id]
    if (!e) return fail('NOT_FOUND', `no employee with id ${employee_id}`)
    return ok(employeeView(tx.state, e))
  },
})
