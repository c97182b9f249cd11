import {ARG, defineTool, fail, ok} from './define.js'

export const requestApproval = defineTool<{employee_id: string; system: string; reason?: string}>({
  name: 'request_approval',
  kind: 'write',
  description: 'Ask for the approval an access policy requires before `grant_access`. The request is routed to the approver the policy names (the employee\'s manager, or the security team) and decided at once. Returns `not_required` when the system needs no approval. Fails with ROLE_NOT_ALLOWED when the employee\'s role may not hold the system, NO_APPROVER when the employee has no manager on record, NOT_FOUND for an unknown employee or system.',
  parameters: {required: ['employee_id', 'system'], properties: {employee_id: ARG.employee_id, system: ARG.system, reason: ARG.reason}},
  reads: ['employees', 'systems', 'approvals'],
  writes: ['approvals', 'seq'],
  errors: ['NOT_FOUND', 'ROLE_NOT_ALLOWED', 'NO_APPROVER'],
  latencyMs: 400,
  run(tx, {employee_id, system}) {
    const e = tx.get('employees')[employee_id]
    if (!e) return fail('NOT_FOUND', `no employee with id ${employee_id}`)
    const s = tx.get('systems')[system]
    if (!s) return fail('NOT_FOUND', `no access system ${system}`)
    if (!s.allowed_roles.includes(e.role)) return fail('ROLE_NOT_ALLOWED', `role ${e.role} may not hold ${system}`)
    if (!s.approval.required) return ok({status: 'not_required', system})
    const existing = Object.values(tx.get('approvals')).find(a => a.employee === employee_id && a.system === system)
    if (existing) return ok({approval_id: existing.id, status: existing.status, approver: existing.approver})
    const approver = s.approval.approver === 'manager' ? e.manager : 'security'
    if (!approver) return fail('NO_APPROVER', `${employee_id} has no manager on record to approve ${system}`)
    const id = tx.nextId('approval', 'AP')
    tx.put('approvals', id, {id, employee: employee_id, system, approver, status: 'approved', requested_at: tx.now})
    return ok({approval_id: id, status: 'approved', approver})
  },
})
