import {ARG, defineTool, fail, ok} from './define.js'
import {onLeave} from '../views.js'

export const requestApproval = defineTool<{employee_id: string; system: string; reason?: string; approver_id?: string}>({
  name: 'request_approval',
  kind: 'write',
  description: 'Ask for the approval an access policy requires before `grant_access`. The request is routed to the approver the policy names (the employee\'s manager, or the security team) and decided at once; every call files a new request, so do not ask again for an approval already on record (get_employee lists them). Returns `not_required` when the system needs no approval. While the manager is on leave, their delegate approves: the call fails with APPROVER_ON_LEAVE naming the delegate, and succeeds when `approver_id` names that delegate. Fails with ROLE_NOT_ALLOWED when the employee\'s role may not hold the system, NO_APPROVER when there is nobody to approve, NOT_AN_APPROVER when `approver_id` may not approve this request, NOT_FOUND for an unknown employee or system.',
  parameters: {
    required: ['employee_id', 'system'],
    properties: {employee_id: ARG.employee_id, system: ARG.system, reason: ARG.reason, approver_id: {...ARG.employee_id, description: 'who approves, when it is not the manager: the delegate of a manager on leave'}},
  },
  reads: ['employees', 'systems', 'approvals'],
  writes: ['approvals', 'seq'],
  errors: ['NOT_FOUND', 'ROLE_NOT_ALLOWED', 'NO_APPROVER', 'APPROVER_ON_LEAVE', 'NOT_AN_APPROVER'],
  latencyMs: 400,
  run(tx, {employee_id, system, approver_id}) {
    const e = tx.get('employees')[employee_id]
    if (!e) return fail('NOT_FOUND', `no employee with id ${employee_id}`)
    const s = tx.get('systems')[system]
    if (!s) return fail('NOT_FOUND', `no access system ${system}`)
    if (s.allowed_roles.length && !s.allowed_roles.includes(e.role)) return fail('ROLE_NOT_ALLOWED', `role ${e.role} may not hold ${system}`)
    if (!s.approval.required) return ok({status: 'not_required', system})
    let approver = s.approval.approver === 'manager' ? e.manager : 'security'
    if (!approver) return fail('NO_APPROVER', `${employee_id} has no manager on record to approve ${system}`)
    const manager = s.approval.approver === 'manager' ? tx.get('employees')[approver] : undefined
    const away = onLeave(manager, tx.now.slice(0, 10))
    if (away && !manager!.leave!.delegate) return fail('NO_APPROVER', `${approver} is on leave until ${manager!.leave!.until} and named no delegate`)
    if (approver_id !== undefined && approver_id !== (away ? manager!.leave!.delegate : approver)) {
      return fail('NOT_AN_APPROVER', `${approver_id} may not approve ${system} for ${employee_id}; the approver is ${away ? manager!.leave!.delegate : approver}`)
    }
    if (away && approver_id === undefined) {
      return fail('APPROVER_ON_LEAVE', `${approver} is on leave until ${manager!.leave!.until}; ${manager!.leave!.delegate} approves in their place (call again with approver_id ${manager!.leave!.delegate})`)
    }
    if (away) approver = manager!.leave!.delegate!
    const id = tx.nextId('approval', 'AP')
    tx.put('approvals', id, {id, employee: employee_id, system, approver, status: 'approved', requested_at: tx.now})
    return ok({approval_id: id, status: 'approved', approver})
  },
})
