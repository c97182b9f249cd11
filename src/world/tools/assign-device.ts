import {ARG, defineTool, fail, ok} from './define.js'

export const assignDevice = defineTool<{employee_id: string; model: string}>({
  name: 'assign_device',
  kind: 'write',
  description: 'Hand one device of a model from the stockroom to an employee: creates an assignment and lowers the stock by one. Fails with OUT_OF_STOCK when the model has no stock, MODEL_NOT_ALLOWED when the model is reserved for other roles, NOT_FOUND for an unknown employee or model, EMPLOYEE_INACTIVE for a terminated employee. It checks nothing else of the hardware policy (substitutions, contractors).',
  parameters: {required: ['employee_id', 'model'], properties: {employee_id: ARG.employee_id, model: ARG.model}},
  reads: ['employees', 'devices'],
  writes: ['assignments', 'devices', 'seq'],
  errors: ['NOT_FOUND', 'EMPLOYEE_INACTIVE', 'MODEL_NOT_ALLOWED', 'OUT_OF_STOCK'],
  latencyMs: 240,
  run(tx, {employee_id, model}) {
    const e = tx.get('employees')[employee_id]
    if (!e) return fail('NOT_FOUND', `no employee with id ${employee_id}`)
    const d = tx.get('devices')[model]
    if (!d) return fail('NOT_FOUND', `no device model ${model}`)
    if (e.status === 'terminated') return fail('EMPLOYEE_INACTIVE', `${employee_id} is terminated`)
    if (d.allowed_roles.length && !d.allowed_roles.includes(e.role)) return fail('MODEL_NOT_ALLOWED', `${model} is reserved for ${d.allowed_roles.join(', ')}; ${employee_id} is a ${e.role}`)
    if (d.stock < 1) return fail('OUT_OF_STOCK', `${model} is out of stock (0 available)`)
    const id = tx.nextId('assignment', 'AS')
    tx.put('assignments', id, {id, employee: employee_id, model, status: 'assigned', assigned_at: tx.now, returned_at: null})
    tx.put('devices', model, {...d, stock: d.stock - 1})
    return ok({assignment_id: id, employee: employee_id, model, remaining_stock: d.stock - 1})
  },
})
