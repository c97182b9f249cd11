import {canonicalJson} from '../records/canonical.js'
import type {EvaluationBody, VerificationBody} from '../records/types.js'
import {citedEntry, type Ledger, type LedgerEntry} from '../store/index.js'
import {checkVerification} from '../evals/evaluator/check.js'
import {evaluatorOf} from '../evals/evaluator/world.js'
import {compareRuns} from '../evals/compare.js'
import {evidenceOf, summarize, type VerifiedEpisode} from '../evals/runner/summary.js'
import {round6 as r6, wilson} from '../evals/stats/index.js'
import {signatureKey, type Standing, type TrustInput} from './types.js'
import {notEvaluationOf} from './of-proposal.js'

/** Fields of an evaluation that must equal their recomputation from the verifications it cites. */
const AGGREGATES = ['total', 'passed', 'failed', 'invalid', 'success_rate', 'ci', 'per_scenario', 'scores', 'pass_hat_k', 'pass_at_k'] as const

const bad = (cls: Extract<Standing, {ok: false}>['class'], reason: string): Standing => ({ok: false, class: cls, reason})

/** A public held-out aggregate: the details (and the verifications) stay on a private lane. */
export function isSealedAggregate(e: LedgerEntry, b: EvaluationBody): boolean {
  return b.split === 'holdout' && !e.private && e.cites.length === 1 && e.cites[0] === b.manifest && b.per_scenario.every(p => !p.verifications?.length)
}

/** at most this many choices among the copies of cited ids are tried against an evaluation's evidence digest */
const PIN_TRIES = 256

/**
 * The entries of the verifications an evaluation cites, by id, in id order (undefined: not in
 * the ledger). Each is its own lane's copy first (store/own.ts, citedEntry). Where other lanes
 * hold copies of a cited id with other bytes, and the evaluation has an evidence digest (which
 * pins the id and digest of each verification it cites), the copies that give that digest are
 * taken: an evaluation may cite another lane's episodes (a reused run), and a third lane's copy
 * of one of them, first in ledger order, must not replace it either.
 */
function citedEntries(ledger: Ledger, e: LedgerEntry, b: EvaluationBody): Map<string, LedgerEntry | undefined> {
  const ids = e.cites.filter(c => c !== b.manifest).sort()
  const out = new Map(ids.map(id => [id, citedEntry(ledger, id, e)] as const))
  if (!b.evidence) return out
  const open: {id: string; digests: string[]}[] = []
  for (const id of ids) {
    const alt = ledger.copies(id)
    if (!alt.length) continue
    const digests = [...new Set([ledger.get(id)!, ...alt].filter(x => x.kind === 'verification').map(x => x.digest))]
    if (digests.length > 1) open.push({id, digests})
  }
  if (!open.length) return out
  const lines = new Map<string, string>()
  for (const [id, x] of out) if (x?.kind === 'verification') lines.set(id, x.digest)
  const want = canonicalJson(b.evidence)
  const matches = () => canonicalJson(evidenceOf([...lines].map(([id, digest]) => ({id, digest})))) === want
  if (matches()) return out
  let tries = 1
  for (const o of open) tries *= o.digests.length
  if (tries > PIN_TRIES) return out
  for (let n = 0; n < tries; n++) {
    let k = n
    for (const o of open) {
      lines.set(o.id, o.digests[k % o.digests.length]!)
      k = Math.floor(k / o.digests.length)
    }
    if (matches()) {
      for (const o of open) out.set(o.id, citedEntry(ledger, o.id, e, lines.get(o.id)))
      return out
    }
  }
  return out
}

/** The verifications an evaluation cites (citedEntries: its own lane's copies, or those its evidence digest pins), in id order (missing ones left out). */
export function citedVerifications(ledger: Ledger, e: LedgerEntry, b: EvaluationBody): VerifiedEpisode[] {
  return versOf(ledger, citedEntries(ledger, e, b))
}

function versOf(ledger: Ledger, entries: ReadonlyMap<string, LedgerEntry | undefined>): VerifiedEpisode[] {
  return [...entries].flatMap(([id, v]) => (v && v.kind === 'verification' ? [{id, digest: v.digest, body: ledger.load<'verification'>(v).body as VerificationBody}] : []))
}

/**
 * Whether an evaluation counts (docs/trust.md): named evaluator, its manifest, signed when
 * the policy requires it, and aggregates (and paired comparison) that recompute exactly
 * from the verifications it cites, each of a trace of the same manifest — replayed in a
 * fresh world when `input.scenarios` is given. A public held-out aggregate cannot be
 * recomputed outside the lane that holds its details: it counts when consistent in itself
 * (and signed, when signing is required), marked `sealed`. What it cites is looked up on its
 * own lane first (store/own.ts, citedEntry): another lane's copy of one of its verifications
 * under the same id does not replace it. `at`: an id (the copy every view shows) or an entry.
 */
export function checkEvaluation(ledger: Ledger, at: string | LedgerEntry, input: TrustInput, standing: (x: string | LedgerEntry) => Standing): Standing {
  const id = typeof at === 'string' ? at : at.id
  const e = typeof at === 'string' ? ledger.get(at) : at
  if (!e || e.kind !== 'evaluation') return bad('forged_evaluation', `${id} is not an evaluation of this ledger`)
  const b = ledger.load<'evaluation'>(e).body as EvaluationBody
  const who = evaluatorOf(b)
  if (!input.settings.evaluators.includes(who.id)) return bad('foreign_evaluator', `judged by evaluator ${who.id}; the policy names ${input.settings.evaluators.join(', ')}`)
  const m = citedEntry(ledger, b.manifest, e)
  if (!m || m.kind !== 'manifest') return bad('forged_evaluation', `its manifest ${b.manifest} is not in the ledger`)
  if (!e.cites.includes(b.manifest)) return bad('forged_evaluation', `it does not cite its manifest ${b.manifest}`)
  const mb = ledger.load<'manifest'>(m).body
  if (mb.split !== b.split || mb.skill.blob !== b.skill.blob || canonicalJson(mb.agent) !== canonicalJson(b.agent)) return bad('inconsistent_evaluation', `split, skill or agent differ from its manifest ${b.manifest}`)
  if (mb.evaluator && (mb.evaluator.id !== who.id || mb.evaluator.digest !== who.digest)) return bad('inconsistent_evaluation', `its evaluator differs from the one its manifest ${b.manifest} names`)
  const signed = signature(e, input)
  if (signed) return signed
  const arithmetic = consistent(b)
  if (arithmetic) return bad('inconsistent_evaluation', arithmetic)
  const other = ofAnotherSkill(ledger, e, b)
  if (other) return bad('forged_evaluation', other)
  if (isSealedAggregate(e, b)) return {ok: true, level: 'sealed'}
  const listed = b.per_scenario.flatMap(p => p.verifications ?? [])
  const cited = e.cites.filter(c => c !== b.manifest)
  if (!cited.length) return bad('forged_evaluation', 'it cites no verification: its numbers come from nowhere')
  if (canonicalJson([...listed].sort()) !== canonicalJson([...cited].sort())) return bad('inconsistent_evaluation', 'the verifications it lists per scenario are not the ones it cites')
  const scenarios = input.scenarios?.(b.manifest)
  // what replay was asked for and could not be done is counted, never passed off as replayed
  const log = input.scenarios ? input.replays : undefined
  const unopened = log && !scenarios ? (input.unreplayable?.(b.manifest) ?? `the scenarios of manifest ${b.manifest} cannot be opened here`) : undefined
  const entries = citedEntries(ledger, e, b)
  for (const vid of cited) {
    const v = entries.get(vid)
    const named = v && v.kind === 'verification' ? ledger.load<'verification'>(v).body.scenario : undefined
    const scenario = named !== undefined && scenarios ? scenarios.get(named) : undefined
    if (scenarios && v && !scenario) {
      log?.miss(vid, b.manifest, `scenario ${named ?? '?'} is not in the dataset its manifest pins`)
      return bad('replay_mismatch', `${vid} judges a scenario that manifest ${b.manifest}'s dataset does not have`)
    }
    if (unopened) log?.miss(vid, b.manifest, unopened)
    const r = checkVerification(ledger, v ?? vid, {manifest: b.manifest, evaluators: input.settings.evaluators, ...(scenario ? {scenario} : {})})
    if (scenario && !r.ok && !r.reason.includes('replay')) log?.miss(vid, b.manifest, r.reason)
    else if (scenario) log?.done(vid)
    if (!r.ok) return bad(scenario && r.reason.includes('replay') ? 'replay_mismatch' : 'forged_evaluation', r.reason)
  }
  const vs = versOf(ledger, entries)
  if (b.evidence && canonicalJson(b.evidence) !== canonicalJson(evidenceOf(vs))) return bad('inconsistent_evaluation', 'its evidence digest does not match the verifications it cites')
  if (!b.evidence && input.settings.requireSigned) return bad('unsigned_evidence', 'it has no evidence digest, so a signature on it does not cover its verifications')
  const again = summarize(vs, {manifest: b.manifest, split: b.split, skill: b.skill, agent: b.agent}, b.repeat ?? 1)
  for (const f of AGGREGATES) {
    if (canonicalJson(b[f] ?? null) !== canonicalJson(again[f] ?? null)) return bad('inconsistent_evaluation', `its ${f} does not recompute from the ${vs.length} verifications it cites`)
  }
  if (b.comparison) {
    const be = citedEntry(ledger, b.comparison.baseline, e)
    const base = standing(be ?? b.comparison.baseline)
    if (!base.ok) return bad('inconsistent_evaluation', `its baseline ${b.comparison.baseline} does not stand (${base.class}: \`exp fsck\` names why)`)
    if (!be) return bad('inconsistent_evaluation', `its baseline ${b.comparison.baseline} is not in the ledger`)
    const bb = ledger.load<'evaluation'>(be).body as EvaluationBody
    if (bb.split !== b.split || bb.manifest === b.manifest) return bad('inconsistent_evaluation', `its baseline ${b.comparison.baseline} is not another skill on the same split`)
    const paired = compareRuns(b.comparison.baseline, citedVerifications(ledger, be, bb), vs)
    if (canonicalJson(paired) !== canonicalJson(b.comparison)) return bad('inconsistent_evaluation', 'its paired comparison does not recompute from the two runs')
  }
  return {ok: true, level: scenarios ? 'replayed' : 'verified'}
}

/**
 * Why an evaluation that names a proposal of this ledger is not evidence of it: its skill is
 * not the proposal's head (a candidate) or the skill it was made from (a baseline), or its
 * comparison's baseline is not (src/trust/of-proposal.ts, the rule `exp promote` and decisions
 * use). The proposal field is a label any lane writes: a copy of another proposal's evaluation
 * re-pointed at a proposal of a skill no run judged made it "supported" in every status,
 * frontier, graph and report.
 */
function ofAnotherSkill(ledger: Ledger, e: LedgerEntry, b: EvaluationBody): string | undefined {
  if (b.proposal === undefined) return undefined
  const p = citedEntry(ledger, b.proposal, e)
  if (p?.kind !== 'proposal') return undefined
  const be = b.comparison ? citedEntry(ledger, b.comparison.baseline, e) : undefined
  const other = notEvaluationOf(ledger.load<'proposal'>(p).body, b, be?.kind === 'evaluation' ? (ledger.load<'evaluation'>(be).body as EvaluationBody) : undefined)
  return other && `it is not an evaluation of ${b.proposal}: ${other}`
}

/** Counts that contradict each other, whatever they were computed from. */
function consistent(b: EvaluationBody): string | undefined {
  const valid = b.total - b.invalid
  if (b.passed + b.failed + b.invalid !== b.total) return `passed ${b.passed} + failed ${b.failed} + invalid ${b.invalid} is not total ${b.total}`
  if ((valid ? b.passed / valid : 0) !== b.success_rate) return `success rate ${b.success_rate} is not ${b.passed} of ${valid}`
  const w = valid ? wilson(b.passed, valid) : {low: 0, high: 0}
  if (r6(w.low) !== b.ci[0] || r6(w.high) !== b.ci[1]) return `interval [${b.ci.join(', ')}] is not the Wilson interval of ${b.passed} of ${valid}`
  if (b.evidence && b.evidence.verifications !== b.total) return `its evidence names ${b.evidence.verifications} verifications for ${b.total} episodes`
  if (b.per_scenario.length) {
    const sum = (k: 'runs' | 'passes' | 'invalid') => b.per_scenario.reduce((s, p) => s + p[k], 0)
    if (sum('runs') !== b.total || sum('passes') !== b.passed || sum('invalid') !== b.invalid) return 'its per-scenario counts do not add up to its totals'
  }
  return undefined
}

/** Unsigned, or signed by someone the policy does not trust, when signing is required. */
export function signature(e: LedgerEntry, input: TrustInput): Standing | undefined {
  if (!input.settings.requireSigned) return undefined
  const s = input.signatures?.get(signatureKey(e))
  if (!s?.principals?.length) return bad('unsigned_evidence', `commit ${e.commit.slice(0, 12)}: ${s?.reason ?? 'its signature was not checked'}`)
  const signers = input.settings.signers
  if (signers && !s.principals.some(p => signers.includes(p))) return bad('unsigned_evidence', untrustedSigner(s.principals, signers))
  return undefined
}

/**
 * Why a key none of whose principals is in `signers` is not trusted. A pattern principal
 * (`*@example.org`) does not stand for a concrete identity of `signers`: the signature
 * asserts no identity, so the pattern would let every key of its line count as that one.
 */
function untrustedSigner(principals: readonly string[], signers: readonly string[]): string {
  const why = `signed by ${principals.join(', ')}, who is not a trusted evaluator identity (${signers.join(', ')})`
  if (!principals.some(p => /[*?]/.test(p))) return why
  return `${why}: a pattern in allowed_signers counts only for a signers entry that writes the same pattern; give the key a line of its own naming the identity`
}
