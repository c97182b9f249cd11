import type {GitRecordStore, Ledger} from '../store/index.js'
import {GitWorkspace} from '../workspace/git.js'
import {loadAuthority, type AuthorityOptions} from '../trust/load.js'
import type {Authority} from '../trust/authority.js'
import {mainRefOf} from './main-ref.js'
import {reportProblems} from './problems.js'
import {plainText} from './plain.js'

/**
 * The authority that says which evidence counts in this repository (docs/trust.md): the
 * policy and allowed signers on the main branch's tip, over the ledger given (or the
 * store's current one). Read commands pass `admit: a.counts` to their projections.
 */
export async function authorityOf(store: GitRecordStore, cwd: string, o: AuthorityOptions & {ledger?: Ledger; main?: string; quiet?: boolean} = {}): Promise<Authority> {
  const ws = new GitWorkspace(store)
  // (a branch name is the checked-out file's words: shown as plain text)
  const tip = await ws.readRef(await mainRefOf(store.repo, cwd, o.main, line => process.stderr.write(`${plainText(line)}\n`)))
  const ledger = o.ledger ?? (await store.ledger())
  // every view that answers from the ledger says which of its records another lane holds with
  // other content (the view shows the copy first in ledger order, which that lane can choose),
  // and which lanes it could not read at all: the view is then partial, and exits with the
  // integrity status (5) after its output, as `exp ledger` does; and which records it left out
  // (a missing or damaged object: provenance, report, hypotheses and graph said nothing, and
  // provenance called such a record "not in this clone"); fsck (quiet) lists them as its own
  if (!o.quiet) reportProblems(ledger.problems)
  return loadAuthority(ledger, ws, {...o, ...(tip ? {at: tip} : {})})
}
