import {ARG, fail, ok} from './define.js'
import type {ToolResult} from '../../agents/types.js'
import type {Tx} from '../state.js'
import type {Workflow} from '../types.js'
import {openWorkflow, workflowView} from '../views.js'

export interface CompleteArgs {
  workflow_id?: string
  employee_id?: string
}

export const COMPLETE_PARAMETERS = {
  minProperties: 1,
  properties: {workflow_id: ARG.workflow_id, employee_id: ARG.employee_id},
}

/**
 * Shared by complete_onboarding and complete_offboarding. Whether open blockers or open
 * items stop the completion is a world setting: by default they do not, the workflow is
 * closed anyway and only the grader notices (a silently wrong action, on purpose).
 */
export function completeWorkflow(tx: Tx, args: CompleteArgs, type: Workflow['type'], refuse: {blockers: boolean; items: boolean}): ToolResult {
  let wf: Workflow | undefined
  if (args.workflow_id) {
    wf = tx.get('workflows')[args.workflow_id]
    if (!wf) return fail('NOT_FOUND', `no workflow ${args.workflow_id}`)
    if (args.employee_id && wf.employee !== args.employee_id) return fail('INVALID_ARGUMENTS', `${wf.id} belongs to ${wf.employee}, not ${args.employee_id}`)
  } else {
    const id = args.employee_id!
    if (!tx.get('employees')[id]) return fail('NOT_FOUND', `no employee with id ${id}`)
    wf = openWorkflow(tx.state, id, type) ?? Object.values(tx.get('workflows')).find(w => w.employee === id && w.type === type)
    if (!wf) return fail('NOT_FOUND', `${id} has no ${type} workflow`)
  }
  if (wf.type !== type) return fail('WRONG_WORKFLOW', `${wf.id} is an ${wf.type} workflow`)
  if (wf.status === 'completed') return fail('ALREADY_COMPLETED', `${wf.id} is already completed`)
  const view = workflowView(tx.state, wf)
  if (refuse.blockers && view.open_blockers > 0) return fail('OPEN_BLOCKERS', `${wf.id} has ${view.open_blockers} open blocker(s)`)
  if (refuse.items && view.open_items > 0) return fail('OPEN_ITEMS', `${wf.id} has ${view.open_items} open item(s)`)
  tx.put('workflows', wf.id, {...wf, status: 'completed', completed_at: tx.now})
  const e = tx.get('employees')[wf.employee]
  if (e) {
    const next = type === 'onboarding' ? {...e, status: 'active' as const} : {...e, status: 'terminated' as const, end_date: e.end_date ?? tx.now.slice(0, 10)}
    tx.put('employees', e.id, next)
  }
  return ok({workflow_id: wf.id, status: 'completed', open_items: view.open_items, open_blockers: view.open_blockers})
}
