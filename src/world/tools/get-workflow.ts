import {ARG, defineTool, fail, ok} from './define.js'
import {workflowView} from '../views.js'

export const getWorkflow = defineTool<{workflow_id: string}>({
  name: 'get_workflow',
  kind: 'read',
  description: 'Read one onboarding or offboarding workflow: its checklist items (devices to hand out or recover, access to grant or revoke) with a `done` flag each, its blockers with their status, and counts of open items and open blockers. Fails with NOT_FOUND for an unknown workflow id.',
  parameters: {required: ['workflow_id'], properties: {workflow_id: ARG.workflow_id}},
  reads: ['workflows', 'assignments', 'access'],
  writes: [],
  errors: ['NOT_FOUND'],
  latencyMs: 80,
  run(tx, {workflow_id}) {
    const wf = tx.get('workflows')[workflow_id]
    if (!wf) return fail('NOT_FOUND', `no workflow ${workflow_id}`)
    return ok(workflowView(tx.state, wf))
  },
})
