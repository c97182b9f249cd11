import {HypothesisStateError, UsageError} from '../errors/index.js'
import {ownKey, type RecordStore} from '../store/index.js'
import {findHypothesis, viewWith} from './lookup.js'

export interface RetireOptions {
  hypothesis: string
  lane: string
  reason: string
  now: () => Date
}

export interface RetireResult {
  note: string
  hypothesis: string
  action: 'retire' | 'reopen'
  /** the status the hypothesis had before */
  was: string
}

/** `exp retire`: the explicit record that a hypothesis is no longer worth exploring (kept as negative evidence). */
export function retireHypothesis(store: RecordStore, o: RetireOptions): Promise<RetireResult> {
  return mark(store, o, 'retire')
}

/** `exp reopen`: undo a retirement; the status becomes whatever the evidence says. */
export function reopenHypothesis(store: RecordStore, o: RetireOptions): Promise<RetireResult> {
  return mark(store, o, 'reopen')
}

async function mark(store: RecordStore, o: RetireOptions, action: 'retire' | 'reopen'): Promise<RetireResult> {
  if (!o.reason.trim()) throw new UsageError(`${action} needs a reason`, 'pass --reason TEXT: it is the record of why')
  // the status is read and the note written under the lock claims take: two `exp reopen` at
  // once both read "retired" and both wrote a reopen, and the second one is a problem
  // (reopen_not_retired) every later `exp fsck` reports, in an append-only ledger
  return store.exclusive('claims', () => markLocked(store, o, action))
}

async function markLocked(store: RecordStore, o: RetireOptions, action: 'retire' | 'reopen'): Promise<RetireResult> {
  const now = o.now()
  const {ledger, node, view} = await findHypothesis(store, o.hypothesis, now)
  if (action === 'retire' && view.status === 'retired') throw new HypothesisStateError(view.id, 'retired', 'retire', 'it is retired already; `exp reopen` undoes that')
  if (action === 'reopen' && view.status !== 'retired') throw new HypothesisStateError(view.id, view.status, 'reopen', 'only a retired hypothesis can be reopened')
  // keyed by (action, hypothesis, lane, step): notes are content-addressed, and a second
  // retire after a reopen, in the same words, must be a new record rather than a no-op; a key
  // anyone can guess, so one another lane holds is passed by (store/own.ts ownKey)
  const step = node.events.filter(l => l.entry.kind === 'note').length
  const effective = (status: string) => (action === 'retire') === (status === 'retired')
  // the note counts where the ledger orders it: behind a record of another lane with a higher
  // Lamport clock (one that put its clock past where the others count), it changes nothing.
  // Checked once its clock is known and before it is written, so such a note is refused and
  // never recorded: written, it stayed in the append-only ledger, and a later retire or reopen
  // of the lane it was meant to follow became a problem fsck reports (reopen_not_retired)
  const res = await store.append(
    {kind: 'note', key: ownKey(ledger, 'note', `${action}/${view.id}/${o.lane}/${step}`, o.lane), body: {text: o.reason, about: [view.id], action}, cites: [view.id]},
    {
      lane: o.lane,
      now: () => now,
      beforeWrite: ([note]) => {
        const after = note && viewWith(ledger, note, view.id, now)?.status
        if (after !== undefined && !effective(after)) throw new HypothesisStateError(view.id, after, action, `its ${action} note would be ordered at lamport ${note!.lamport}, before a record of another lane that leaves ${view.id} ${after}, and change nothing: nothing was recorded; \`exp ledger --since ${note!.lamport - 1}\` lists what is ordered after it`)
      },
    },
  )
  // (records synced in between the check and the write can still leave it without effect: said)
  const after = (await findHypothesis(store, view.id, now)).view.status
  if (!effective(after)) throw new HypothesisStateError(view.id, after, action, `the ${action} note ${res.id} (lamport ${res.lamport}) is recorded, but a record ordered after it in the ledger leaves ${view.id} ${after}: \`exp hypotheses\` and \`exp fsck\` show which`)
  return {note: res.id, hypothesis: view.id, action, was: view.status}
}
