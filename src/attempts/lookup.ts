import type {Ledger} from '../store/index.js'
import {ExpError, NotFoundError} from '../errors/index.js'
import {byPrefix} from '../records/prefix.js'

/** An attempt id from an id or a unique prefix of one. */
export function resolveAttempt(ledger: Ledger, id: string): string {
  const e = ledger.get(id)
  if (e) {
    if (e.kind !== 'attempt') throw new ExpError('E_USAGE', `${id} is a ${e.kind} record, not an attempt`, {hint: 'pass an at-… id (exp attempt list)'})
    return id
  }
  const found = byPrefix(ledger.select({kinds: ['attempt']}).map(x => x.id), id, 'attempt')
  if (found) return found
  throw new NotFoundError('attempt', id, 'list attempts with `exp attempt list`')
}
