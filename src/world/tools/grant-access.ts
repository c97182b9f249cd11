import {ARG, defineTool, fail, ok} from './define.js'
import {accessKey} from '../types.js'

export const grantAccess = defineTool<{employee_id: string; system: string}>({
  name: 'grant_access',
  kind: 'write',
  description: 'Give an employee access to a system. Role restrictions are enforced (ROLE_NOT_ALLOWED). Approvals are enforced technically only on some systems (APPROVAL_REQUIRED); on the others the grant goes through even when the policy requires an approval, so read the policy first. Systems restricted to some employment types refuse the others (EMPLOYMENT_NOT_ALLOWED). Fails with NOT_FOUND for an unknown employee or system and EMPLOYEE_INACTIVE for a terminated employee. Granting a system the employee already holds is a no-op.',
  parameters: {required: ['employee_id', 'system'], properties: {employee_id: ARG.employee_id, system: ARG.system}},
  reads: ['employees', 'systems', 'approvals', 'access'],
  writes: ['access'],
  errors: ['NOT_FOUND', 'EMPLOYEE_INACTIVE', 'ROLE_NOT_ALLOWED', 'EMPLOYMENT_NOT_ALLOWED', 'APPROVAL_REQUIRED'],
  latencyMs: 260,
  run(tx, {employee_id, system}) {
    const e = tx.get('employees')[employee_id]
    if (!e) return fail('NOT_FOUND', `no employee with id ${employee_id}`)
    const s = tx.get('systems')[system]
    if (!s) return fail('NOT_FOUND', `no access system ${system}`)
    if (e.status === 'terminated') return fail('EMPLOYEE_INACTIVE', `${employee_id} is terminated`)
    if (s.allowed_roles.length && !s.allowed_roles.includes(e.role)) return fail('ROLE_NOT_ALLOWED', `role ${e.role} may not hold ${system}`)
    if (s.allowed_employment.length && !s.allowed_employment.includes(e.employment_type)) return fail('EMPLOYMENT_NOT_ALLOWED', `${system} is for ${s.allowed_employment.join(', ')} only; ${employee_id} is a ${e.employment_type}`)
    const key = accessKey(employee_id, system)
    const current = tx.get('access')[key]
    if (current?.status === 'active') return ok({employee: employee_id, system, status: 'active', note: 'already granted'})
    const approval = Object.values(tx.get('approvals')).find(a => a.employee === employee_id && a.system === system && a.status === 'approved')
    if (s.approval.required && !approval && s.approval.enforced) return fail('APPROVAL_REQUIRED', `${system} needs an approval from the ${s.approval.approver}; call request_approval first`)
    tx.put('access', key, {employee: employee_id, system, status: 'active', granted_at: tx.now, revoked_at: null, approval: approval?.id ?? null})
    return ok({employee: employee_id, system, status: 'active'})
  },
})
