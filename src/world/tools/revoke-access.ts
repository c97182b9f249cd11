import {ARG, defineTool, fail, ok} from './define.js'
import {accessKey} from '../types.js'

export const revokeAccess = defineTool<{employee_id: string; system: string}>({
  name: 'revoke_access',
  kind: 'write',
  description: 'Remove an employee\'s access to a system. Fails with NOT_FOUND when the employee holds no active access to it.',
  parameters: {required: ['employee_id', 'system'], properties: {employee_id: ARG.employee_id, system: ARG.system}},
  reads: ['access'],
  writes: ['access'],
  errors: ['NOT_FOUND'],
  latencyMs: 200,
  run(tx, {employee_id, system}) {
    const key = accessKey(employee_id, system)
    const g = tx.get('access')[key]
    if (!g || g.status !== 'active') return fail('NOT_FOUND', `${employee_id} has no active access to ${system}`)
    tx.put('access', key, {...g, status: 'revoked', revoked_at: tx.now})
    return ok({employee: employee_id, system, status: 'revoked'})
  },
})
