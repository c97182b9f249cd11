import {defineTool} from './define.js'
import {COMPLETE_PARAMETERS, completeWorkflow, type CompleteArgs} from './complete-workflow.js'

export const completeOffboarding = defineTool<CompleteArgs>({
  name: 'complete_offboarding',
  kind: 'write',
  description: 'Close an employee\'s offboarding workflow (by `workflow_id` or `employee_id`) and mark the employee terminated. The result reports how many devices and access grants were still held. Refuses with OPEN_ITEMS only where the company enforces it; elsewhere it closes the workflow regardless. Fails with NOT_FOUND, WRONG_WORKFLOW for an onboarding workflow, ALREADY_COMPLETED.',
  parameters: COMPLETE_PARAMETERS,
  reads: ['workflows', 'employees', 'assignments', 'access', 'settings'],
  writes: ['workflows', 'employees'],
  errors: ['NOT_FOUND', 'WRONG_WORKFLOW', 'ALREADY_COMPLETED', 'OPEN_BLOCKERS', 'OPEN_ITEMS'],
  latencyMs: 320,
  run(tx, args) {
    return completeWorkflow(tx, args, 'offboarding', {blockers: tx.get('settings').enforce.workflow_blockers, items: tx.get('settings').enforce.offboarding_items})
  },
})
