import {ARG, defineTool, ok} from './define.js'

export const escalate = defineTool<{reason: string; team?: string; employee_id?: string; target_id?: string}>({
  name: 'escalate',
  kind: 'write',
  description: 'Hand a problem to a human team (it, hr, security, procurement or manager) with a reason: the right move when information is missing or contradictory, a dependency cannot be fulfilled, or a request is not allowed. Ids are recorded as given, even unknown ones, so an unknown employee can be reported.',
  parameters: {
    required: ['reason'],
    properties: {
      reason: ARG.reason,
      team: {type: 'string', enum: ['it', 'hr', 'security', 'procurement', 'manager']},
      employee_id: ARG.employee_id,
      target_id: {type: 'string', pattern: '^(WF|TCK|PR|AP)-[0-9]{4}$'},
    },
  },
  reads: [],
  writes: ['escalations', 'seq'],
  errors: [],
  latencyMs: 120,
  run(tx, {reason, team, employee_id, target_id}) {
    const id = tx.nextId('escalation', 'ESC')
    tx.put('escalations', id, {id, employee: employee_id ?? null, target: target_id ?? null, team: team ?? 'it', reason, created_at: tx.now})
    return ok({escalation_id: id, team: team ?? 'it'})
  },
})
