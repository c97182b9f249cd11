import {accessKey, type Employee, type Workflow, type WorldState} from './types.js'

/**
 * Read projections shared by the tools: what an agent sees of an employee or a workflow.
 * Derived from the state on each call (never stored), so they cannot drift from it.
 */

export function activeAssignments(state: WorldState, employee: string) {
  return Object.values(state.assignments).filter(a => a.employee === employee && a.status === 'assigned')
}

export function activeGrants(state: WorldState, employee: string) {
  return Object.values(state.access).filter(g => g.employee === employee && g.status === 'active')
}

export function itemDone(state: WorldState, wf: Workflow, item: Workflow['items'][number]): boolean {
  if (item.type === 'device') {
    const held = activeAssignments(state, wf.employee).some(a => a.model === item.model)
    return wf.type === 'onboarding' ? held : !held
  }
  const granted = state.access[accessKey(wf.employee, item.system)]?.status === 'active'
  return wf.type === 'onboarding' ? granted : !granted
}

export function workflowView(state: WorldState, wf: Workflow) {
  const items = wf.items.map(i => ({...i, done: itemDone(state, wf, i)}))
  const open = wf.blockers.filter(b => b.status === 'open')
  return {
    id: wf.id,
    type: wf.type,
    employee: wf.employee,
    status: wf.status,
    items,
    open_items: items.filter(i => !i.done).length,
    blockers: wf.blockers,
    open_blockers: open.length,
  }
}

export function employeeView(state: WorldState, e: Employee) {
  const manager = e.manager ? state.employees[e.manager] : undefined
  return {
    ...e,
    manager_name: manager?.name ?? null,
    department_name: state.departments[e.department]?.name ?? null,
    devices: activeAssignments(state, e.id).map(a => ({assignment_id: a.id, model: a.model})),
    access: activeGrants(state, e.id).map(g => g.system),
    approvals: Object.values(state.approvals).filter(a => a.employee === e.id).map(a => ({approval_id: a.id, system: a.system, approver: a.approver})),
    workflows: Object.values(state.workflows).filter(w => w.employee === e.id).map(w => workflowView(state, w)),
  }
}

/** Is the person on leave on this date (YYYY-MM-DD)? */
export function onLeave(e: Employee | undefined, date: string): boolean {
  return !!e?.leave && e.leave.from <= date && date <= e.leave.until
}

export function openWorkflow(state: WorldState, employee: string, type: Workflow['type']): Workflow | undefined {
  return Object.values(state.workflows).find(w => w.employee === employee && w.type === type && w.status === 'open')
}

/** Lower-case word tokens of a text, for the simple keyword searches of the world. */
export function tokens(text: string): string[] {
  return text.toLowerCase().split(/[^a-z0-9]+/).filter(t => t.length > 0)
}
