import {ARG, defineTool, ok} from './define.js'
import {tokens} from '../views.js'

export const searchTickets = defineTool<{query?: string; employee_id?: string; status?: string}>({
  name: 'search_tickets',
  kind: 'read',
  description: 'Search IT tickets by words of the subject or description, by employee, and by status. Returns up to 10 tickets, newest first, with id, subject, status, employee and category.',
  parameters: {
    minProperties: 1,
    properties: {
      query: {type: 'string', minLength: 1, maxLength: 500},
      employee_id: ARG.employee_id,
      status: {type: 'string', enum: ['open', 'in_progress', 'blocked', 'resolved', 'closed', 'duplicate']},
    },
  },
  reads: ['tickets'],
  writes: [],
  errors: [],
  latencyMs: 110,
  run(tx, {query, employee_id, status}) {
    const words = query ? new Set(tokens(query).filter(w => w.length >= 3)) : undefined
    const found = Object.values(tx.get('tickets'))
      .filter(t => (!employee_id || t.employee === employee_id) && (!status || t.status === status))
      .filter(t => !words || tokens(`${t.subject} ${t.description}`).some(w => words.has(w)))
      .sort((a, b) => (a.id < b.id ? 1 : -1))
    return ok({tickets: found.slice(0, 10).map(t => ({id: t.id, subject: t.subject, status: t.status, employee: t.employee, category: t.category}))})
  },
})
