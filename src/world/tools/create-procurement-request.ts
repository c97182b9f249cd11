import {ARG, defineTool, fail, ok} from './define.js'

export const createProcurementRequest = defineTool<{model: string; employee_id?: string; quantity?: number; justification?: string}>({
  name: 'create_procurement_request',
  kind: 'write',
  description: 'Ask procurement to buy devices of a model, optionally for a named employee. Use it when stock cannot cover a need; it does not assign anything. Fails with NOT_FOUND for an unknown model or employee, DUPLICATE_REQUEST when the same employee already has a request for that model.',
  parameters: {
    required: ['model'],
    properties: {model: ARG.model, employee_id: ARG.employee_id, quantity: {type: 'integer', minimum: 1, maximum: 50}, justification: ARG.reason},
  },
  reads: ['devices', 'employees', 'procurement'],
  writes: ['procurement', 'seq'],
  errors: ['NOT_FOUND', 'DUPLICATE_REQUEST'],
  latencyMs: 300,
  run(tx, {model, employee_id, quantity, justification}) {
    if (!tx.get('devices')[model]) return fail('NOT_FOUND', `no device model ${model}`)
    if (employee_id && !tx.get('employees')[employee_id]) return fail('NOT_FOUND', `no employee with id ${employee_id}`)
    const dup = employee_id ? Object.values(tx.get('procurement')).find(p => p.model === model && p.employee === employee_id) : undefined
    if (dup) return fail('DUPLICATE_REQUEST', `${dup.id} already requests ${model} for ${employee_id}`)
    const id = tx.nextId('procurement', 'PR')
    tx.put('procurement', id, {id, employee: employee_id ?? null, model, quantity: quantity ?? 1, justification: justification ?? '', status: 'requested', requested_at: tx.now})
    return ok({request_id: id, model, status: 'requested'})
  },
})
