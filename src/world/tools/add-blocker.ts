import {defineTool, fail, ok} from './define.js'
import type {Blocker} from '../types.js'

export const addBlocker = defineTool<{target_id: string; reason: string; category?: string}>({
  name: 'add_blocker',
  kind: 'write',
  description: 'Record a blocker on a workflow (`WF-…`) or a ticket (`TCK-…`): something that must happen before it can be completed, such as a device on order or a missing approval. A blocked ticket gets status blocked. Fails with NOT_FOUND for an unknown target and ALREADY_COMPLETED for a completed workflow or a closed ticket.',
  parameters: {
    required: ['target_id', 'reason'],
    properties: {
      target_id: {type: 'string', pattern: '^(WF|TCK)-[0-9]{4}$'},
      reason: {type: 'string', minLength: 1, maxLength: 2000},
      category: {type: 'string', enum: ['hardware', 'access', 'information', 'approval', 'other']},
    },
  },
  reads: ['workflows', 'tickets'],
  writes: ['workflows', 'tickets', 'seq'],
  errors: ['NOT_FOUND', 'ALREADY_COMPLETED'],
  latencyMs: 150,
  run(tx, {target_id, reason, category}) {
    const make = (): Blocker => ({id: tx.nextId('blocker', 'BLK'), reason, category: category ?? 'other', status: 'open', created_at: tx.now})
    if (target_id.startsWith('WF-')) {
      const wf = tx.get('workflows')[target_id]
      if (!wf) return fail('NOT_FOUND', `no workflow ${target_id}`)
      if (wf.status === 'completed') return fail('ALREADY_COMPLETED', `${target_id} is already completed`)
      const b = make()
      tx.put('workflows', target_id, {...wf, blockers: [...wf.blockers, b]})
      return ok({target_id, blocker_id: b.id})
    }
    const t = tx.get('tickets')[target_id]
    if (!t) return fail('NOT_FOUND', `no ticket ${target_id}`)
    if (t.status === 'closed' || t.status === 'resolved') return fail('ALREADY_COMPLETED', `${target_id} is ${t.status}`)
    const b = make()
    tx.put('tickets', target_id, {...t, status: 'blocked', blockers: [...t.blockers, b], updated_at: tx.now})
    return ok({target_id, blocker_id: b.id})
  },
})
