import {ARG, defineTool, fail, ok} from './define.js'

export const denyRequest = defineTool<{reason: string; employee_id?: string; item?: string; target_id?: string}>({
  name: 'deny_request',
  kind: 'write',
  description: 'Refuse a request that policy does not allow and tell the requester why: a device model reserved for other roles, a system the person\'s employment type may not hold. Name what is refused with `item` (a model or system id) and the workflow or ticket it came with, if any. Records the refusal and changes nothing else; an escalation hands a problem on instead. Fails with NOT_FOUND for an unknown employee.',
  parameters: {
    required: ['reason'],
    properties: {
      reason: ARG.reason,
      employee_id: ARG.employee_id,
      item: {type: 'string', minLength: 1, maxLength: 200, description: 'the model or system refused'},
      target_id: {type: 'string', pattern: '^(WF|TCK)-[0-9]{4}$'},
    },
  },
  reads: ['employees'],
  writes: ['denials', 'seq'],
  errors: ['NOT_FOUND'],
  latencyMs: 140,
  run(tx, {reason, employee_id, item, target_id}) {
    if (employee_id && !tx.get('employees')[employee_id]) return fail('NOT_FOUND', `no employee with id ${employee_id}`)
    const id = tx.nextId('denial', 'DN')
    tx.put('denials', id, {id, employee: employee_id ?? null, item: item ?? null, target: target_id ?? null, reason, created_at: tx.now})
    return ok({denial_id: id, status: 'denied'})
  },
})
