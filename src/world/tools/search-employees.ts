import {defineTool, ok} from './define.js'
import {tokens} from '../views.js'
import type {Employee} from '../types.js'

/**
 * Exact full-name matches win; otherwise anyone sharing a first or last name is returned.
 * That fuzzy fallback is deliberate: it is how a naive agent ends up acting on the wrong person.
 */
function matchName(all: Employee[], name: string): Employee[] {
  const want = tokens(name).join(' ')
  const exact = all.filter(e => tokens(e.name).join(' ') === want)
  if (exact.length) return exact
  const parts = new Set(tokens(name).filter(t => t.length >= 3))
  return all.filter(e => tokens(e.name).some(t => parts.has(t)))
}

/** `Sales`, `sales` and a department's display name all name it; `sales rep` names role `sales-rep`. */
const words = (s: string) => tokens(s).join(' ')

export const searchEmployees = defineTool<{name?: string; department?: string; role?: string; status?: string}>({
  name: 'search_employees',
  kind: 'read',
  description: 'Search the employee directory by name (exact full-name matches first; when there is none, people sharing a first or last name), optionally filtered by department (its id or its name), role (e.g. `sales rep` or `sales-rep`) and status. Returns up to 10 matches with id, name, department, role and status. An empty list means nobody matched.',
  parameters: {
    minProperties: 1,
    properties: {
      name: {type: 'string', minLength: 1},
      department: {type: 'string', minLength: 1},
      role: {type: 'string', minLength: 1},
      status: {type: 'string', enum: ['pending', 'active', 'offboarding', 'terminated']},
    },
  },
  reads: ['employees', 'departments'],
  writes: [],
  errors: [],
  latencyMs: 120,
  run(tx, {name, department, role, status}) {
    let found = Object.values(tx.get('employees'))
    if (name) found = matchName(found, name)
    if (department) {
      const want = words(department)
      found = found.filter(e => words(e.department) === want || words(tx.get('departments')[e.department]?.name ?? '') === want)
    }
    if (role) found = found.filter(e => words(e.role) === words(role))
    if (status) found = found.filter(e => e.status === status)
    const matches = found.slice(0, 10).map(e => ({id: e.id, name: e.name, department: e.department, role: e.role, status: e.status}))
    return ok({matches})
  },
})
