import {defineTool} from './define.js'
import {COMPLETE_PARAMETERS, completeWorkflow, type CompleteArgs} from './complete-workflow.js'

export const completeOnboarding = defineTool<CompleteArgs>({
  name: 'complete_onboarding',
  kind: 'write',
  description: 'Close an employee\'s onboarding workflow (by `workflow_id` or `employee_id`) and make the employee active. The result reports how many checklist items and blockers were still open. Refuses with OPEN_BLOCKERS only where the company enforces it; elsewhere it closes the workflow regardless. Fails with NOT_FOUND, WRONG_WORKFLOW for an offboarding workflow, ALREADY_COMPLETED.',
  parameters: COMPLETE_PARAMETERS,
  reads: ['workflows', 'employees', 'assignments', 'access', 'settings'],
  writes: ['workflows', 'employees'],
  errors: ['NOT_FOUND', 'WRONG_WORKFLOW', 'ALREADY_COMPLETED', 'OPEN_BLOCKERS'],
  latencyMs: 320,
  run(tx, args) {
    return completeWorkflow(tx, args, 'onboarding', {blockers: tx.get('settings').enforce.workflow_blockers, items: false})
  },
})
