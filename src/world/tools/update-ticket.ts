import {ARG, defineTool, fail, ok} from './define.js'
import type {Ticket} from '../types.js'

const CLOSING: ReadonlySet<string> = new Set(['resolved', 'closed'])

export const updateTicket = defineTool<{ticket_id: string; status?: Ticket['status']; comment?: string; duplicate_of?: string; priority?: Ticket['priority']}>({
  name: 'update_ticket',
  kind: 'write',
  description: 'Change a ticket: add a comment, set its status (open, in_progress, blocked, resolved, closed), its priority, or mark it a duplicate of another ticket with `duplicate_of` (status becomes duplicate). Fails with NOT_FOUND for an unknown ticket, OPEN_BLOCKERS when resolving or closing a ticket whose blockers are still open, INVALID_ARGUMENTS when nothing would change.',
  parameters: {
    required: ['ticket_id'],
    properties: {
      ticket_id: ARG.ticket_id,
      status: {type: 'string', enum: ['open', 'in_progress', 'blocked', 'resolved', 'closed']},
      comment: {type: 'string', minLength: 1, maxLength: 4000},
      duplicate_of: ARG.ticket_id,
      priority: {type: 'string', enum: ['low', 'normal', 'high']},
    },
  },
  reads: ['tickets'],
  writes: ['tickets'],
  errors: ['NOT_FOUND', 'OPEN_BLOCKERS'],
  latencyMs: 180,
  run(tx, {ticket_id, status, comment, duplicate_of, priority}) {
    const t = tx.get('tickets')[ticket_id]
    if (!t) return fail('NOT_FOUND', `no ticket ${ticket_id}`)
    if (!status && !comment && !duplicate_of && !priority) return fail('INVALID_ARGUMENTS', 'nothing to update: give a status, comment, duplicate_of or priority')
    if (duplicate_of && !tx.get('tickets')[duplicate_of]) return fail('NOT_FOUND', `no ticket ${duplicate_of}`)
    if (status && CLOSING.has(status) && t.blockers.some(b => b.status === 'open')) return fail('OPEN_BLOCKERS', `${ticket_id} has open blockers`)
    const next: Ticket = {
      ...t,
      status: duplicate_of ? 'duplicate' : (status ?? t.status),
      duplicate_of: duplicate_of ?? t.duplicate_of,
      priority: priority ?? t.priority,
      comments: comment ? [...t.comments, comment] : t.comments,
      updated_at: tx.now,
    }
    tx.put('tickets', ticket_id, next)
    return ok({ticket_id, status: next.status})
  },
})
