import {ARG, defineTool, fail, ok} from './define.js'
import {tokens} from '../views.js'
import type {Ticket} from '../types.js'

const CATEGORIES = ['hardware', 'access', 'network', 'accounts', 'facilities', 'onboarding', 'offboarding', 'other'] as const
export const OPEN_TICKET: ReadonlySet<Ticket['status']> = new Set(['open', 'in_progress', 'blocked'])

export const createTicket = defineTool<{subject: string; description?: string; employee_id?: string; category?: string; priority?: Ticket['priority']}>({
  name: 'create_ticket',
  kind: 'write',
  description: 'Open a new IT ticket. Fails with DUPLICATE_TICKET when an open ticket has exactly the same subject (and, where the helpdesk enforces it, when the same employee already has an open ticket in that category); differently worded duplicates are not detected, so search first. Fails with NOT_FOUND for an unknown employee.',
  parameters: {
    required: ['subject'],
    properties: {
      subject: {type: 'string', minLength: 3, maxLength: 200},
      description: {type: 'string', maxLength: 4000},
      employee_id: ARG.employee_id,
      category: {type: 'string', enum: [...CATEGORIES]},
      priority: {type: 'string', enum: ['low', 'normal', 'high']},
    },
  },
  reads: ['tickets', 'employees', 'settings'],
  writes: ['tickets', 'seq'],
  errors: ['NOT_FOUND', 'DUPLICATE_TICKET'],
  latencyMs: 280,
  run(tx, {subject, description, employee_id, category, priority}) {
    if (employee_id && !tx.get('employees')[employee_id]) return fail('NOT_FOUND', `no employee with id ${employee_id}`)
    const norm = tokens(subject).join(' ')
    const cat = category ?? 'other'
    const dedupe = tx.get('settings').enforce.ticket_dedupe
    for (const t of Object.values(tx.get('tickets'))) {
      if (!OPEN_TICKET.has(t.status)) continue
      const same = tokens(t.subject).join(' ') === norm || (dedupe && employee_id !== undefined && t.employee === employee_id && t.category === cat)
      if (same) return fail('DUPLICATE_TICKET', `open ticket ${t.id} already covers this: "${t.subject}"`)
    }
    const id = tx.nextId('ticket', 'TCK')
    tx.put('tickets', id, {
      id, subject, description: description ?? '', employee: employee_id ?? null, category: cat, priority: priority ?? 'normal',
      status: 'open', duplicate_of: null, blockers: [], comments: [], created_at: tx.now, updated_at: tx.now,
    })
    return ok({ticket_id: id, status: 'open'})
  },
})
