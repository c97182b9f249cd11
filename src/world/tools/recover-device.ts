import {ARG, defineTool, fail, ok} from './define.js'
import {activeAssignments} from '../views.js'

export const recoverDevice = defineTool<{employee_id: string; model?: string; assignment_id?: string}>({
  name: 'recover_device',
  kind: 'write',
  description: 'Take a device back from an employee (offboarding, replacement): marks the assignment returned and puts the device back in stock. Name the device by `assignment_id` or by `model`. Fails with NOT_FOUND when the employee holds no such device.',
  parameters: {
    required: ['employee_id'],
    properties: {employee_id: ARG.employee_id, model: ARG.model, assignment_id: {type: 'string', pattern: '^AS-[0-9]{4}$'}},
  },
  reads: ['assignments'],
  writes: ['assignments', 'devices'],
  errors: ['NOT_FOUND'],
  latencyMs: 220,
  run(tx, {employee_id, model, assignment_id}) {
    if (!model && !assignment_id) return fail('INVALID_ARGUMENTS', 'give a model or an assignment_id')
    const a = activeAssignments(tx.state, employee_id).find(x => (assignment_id ? x.id === assignment_id : x.model === model))
    if (!a) return fail('NOT_FOUND', `${employee_id} holds no ${assignment_id ?? model}`)
    tx.put('assignments', a.id, {...a, status: 'returned', returned_at: tx.now})
    const d = tx.get('devices')[a.model]
    if (d) tx.put('devices', a.model, {...d, stock: d.stock + 1})
    return ok({assignment_id: a.id, model: a.model, status: 'returned'})
  },
})
