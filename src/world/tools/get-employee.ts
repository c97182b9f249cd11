import {ARG, defineTool, fail, ok} from './define.js'
import {employeeView} from '../views.js'

const str = {type: 'string'}
const strOrNull = {type: ['string', 'null']}
const list = {type: 'array'}
/**
 * The HR record an agent gets: which fields must be set before anyone acts on it. A start
 * date is always required; a contractor's end date (the contract's last day) too.
 */
export const EMPLOYEE_RECORD = {
  type: 'object',
  required: ['id', 'name', 'email', 'department', 'role', 'status', 'employment_type', 'start_date', 'end_date', 'manager', 'leave', 'pending_info', 'devices', 'access', 'approvals', 'workflows'],
  properties: {
    id: str, name: str, email: str, department: str, department_name: strOrNull, role: str, status: str, employment_type: {type: 'string', enum: ['employee', 'contractor', 'intern']},
    start_date: str, end_date: strOrNull, manager: strOrNull, manager_name: strOrNull, leave: {type: ['object', 'null']},
    pending_info: list, devices: list, access: list, approvals: list, workflows: list,
  },
  allOf: [{if: {properties: {employment_type: {const: 'contractor'}}}, then: {required: ['end_date']}}],
}

export const getEmployee = defineTool<{employee_id: string}>({
  name: 'get_employee',
  kind: 'read',
  description: 'Look up one employee by id. Returns the HR record (name, department, manager, role, status, employment type, start and end date, leave, and `pending_info`: fields HR has not confirmed yet), the devices and access systems the employee currently holds, the approvals on record for them, and their onboarding/offboarding workflows with checklist items and blockers. Fails with NOT_FOUND when no employee has that id.',
  parameters: {required: ['employee_id'], properties: {employee_id: ARG.employee_id}},
  returns: EMPLOYEE_RECORD,
  reads: ['employees', 'departments', 'assignments', 'access', 'approvals', 'workflows'],
  writes: [],
  errors: ['NOT_FOUND'],
  latencyMs: 90,
  run(tx, {employee_id}) {
    const e = tx.get('employees')[employee_id]
    if (!e) return fail('NOT_FOUND', `no employee with id ${employee_id}`)
    return ok(employeeView(tx.state, e))
  },
})
