import type {EmployeeView} from './memory.js'
import type {TaskFacts} from './task.js'

const norm = (s: string) => s.toLowerCase().replace(/[^a-z]+/g, ' ').trim()

/** Does the HR record disagree with what the task says about the person? */
export function contradicts(facts: TaskFacts, e: Pick<EmployeeView, 'name' | 'role' | 'department' | 'manager_name'>): boolean {
  if (facts.name && norm(facts.name) !== norm(e.name)) return true
  const c = facts.claims
  if (c.department && c.department !== e.department) return true
  if (c.role && c.role !== e.role) return true
  if (c.manager && e.manager_name && norm(c.manager) !== norm(e.manager_name)) return true
  return false
}
