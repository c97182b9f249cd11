import type {EmployeeView} from './memory.js'
import type {PersonFacts} from './task.js'

const norm = (s: string | null | undefined) => (s ?? '').toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim()
const words = (s: string | null | undefined) => norm(s).split(' ').filter(Boolean)

/** A department named in other words: its id (`hr`) or its name (`People`). */
export function sameDepartment(claim: string, e: Pick<EmployeeView, 'department' | 'department_name'>): boolean {
  const c = norm(claim)
  return c === norm(e.department) || c === norm(e.department_name)
}

/** A role named in other words: every word of the role id is in the phrase (`software engineer` is an `engineer`). */
export function sameRole(claim: string, role: string): boolean {
  const c = new Set(words(claim))
  return words(role).every(w => c.has(w))
}

/** Does the HR record disagree with what the task says about the person? */
export function contradicts(p: PersonFacts, e: Pick<EmployeeView, 'name' | 'role' | 'department' | 'department_name' | 'manager_name'>): boolean {
  if (p.name && norm(p.name) !== norm(e.name)) return true
  const c = p.claims
  const departments = c.departments ?? (c.department ? [c.department] : [])
  if (departments.length && !departments.some(d => sameDepartment(d, e))) return true
  if (c.role && !sameRole(c.role, e.role)) return true
  if (c.manager && e.manager_name && norm(c.manager) !== norm(e.manager_name)) return true
  return false
}
