import type {Ledger} from '../store/index.js'
import {ExpError, NotFoundError} from '../errors/index.js'

/** An attempt id from an id or a unique prefix of one. */
export function resolveAttempt(ledger: Ledger, id: string): string {
  const e = ledger.get(id)
  if (e) {
    if (e.kind !== 'attempt') throw new ExpError('E_USAGE', `${id} is a ${e.kind} record, not an attempt`, {hint: 'pass an at-… id (exp attempt list)'})
    return id
  }
  const near = ledger.select({kinds: ['attempt']}).map(x => x.id).filter(x => x.startsWith(id))
  if (near.length === 1) return near[0]!
  throw new NotFoundError('attempt', id, near.length > 1 ? `the prefix is ambiguous: ${near.slice(0, 5).join(', ')}` : 'list attempts with `exp attempt list`')
}
