import type {PromotionPolicy} from '../records/types.js'
import type {Scenario} from '../scenarios/types.js'
import type {Contract} from '../contracts/types.js'
import type {CommittedDataset} from './dataset.js'

/**
 * What `exp fsck` reports and every projection skips (docs/trust.md):
 * - forged_evaluation: numbers that come from nowhere (no verifications, missing manifest, foreign traces);
 * - inconsistent_evaluation: aggregates that do not recompute from the verifications cited;
 * - foreign_evaluator: judged by an evaluator the policy does not name;
 * - foreign_measurement: a verdict of an attempt (or the observation it judges) written on another lane than the attempt's own;
 * - replay_mismatch: a trace that does not replay to its verdict in a fresh world;
 * - unsigned_evidence: the policy requires signed evidence and this is not signed by a trusted identity;
 * - forged_decision: an accept the policy would not give on its evidence, or evidence that does not stand;
 * - unverified_promotion: a merge on main with promotion trailers that no standing accept decision names;
 * - conflicting_decision: a proposal or attempt with both an accept and a reject that stand.
 */
export type TrustProblemClass = 'forged_evaluation' | 'inconsistent_evaluation' | 'foreign_evaluator' | 'foreign_measurement' | 'replay_mismatch' | 'unsigned_evidence' | 'forged_decision' | 'unverified_promotion' | 'conflicting_decision'

/** How a piece of evidence stands. `sealed`: a public held-out aggregate, consistent in itself, whose details are private. */
export type Standing = {ok: true; level: 'verified' | 'replayed' | 'sealed'} | {ok: false; class: TrustProblemClass; reason: string}

export interface TrustSettings {
  /** evaluator ids whose verifications count (policy evidence.evaluators, default [world]) */
  evaluators: readonly string[]
  requireSigned: boolean
  /** trusted principals of the allowed-signers file (default: all of them) */
  signers?: readonly string[]
}

export interface SignatureCheck {
  /** the principals (as allowed_signers writes them) the signing key may sign as; none: not trusted */
  principals?: readonly string[]
  reason?: string
}

/** A record on its lane (two lanes may hold copies of one id; two entries may claim one commit when the cache was edited). */
export function signatureKey(e: {ref: string; id: string}): string {
  return `${e.ref}\0${e.id}`
}

export interface TrustInput {
  settings: TrustSettings
  /** the main branch's tip, when known: a reject saying main had moved from a base is checked against it */
  main?: string
  /** by signatureKey(entry): who signed the commit that added each evaluation, decision and verdict record (needed when signing is required) */
  signatures?: ReadonlyMap<string, SignatureCheck>
  /** promotion policies by blob id: a decision names the blob it was decided under */
  policies?: ReadonlyMap<string, PromotionPolicy>
  /** research contracts by digest: the verdicts and attempt decisions name the contract that judged them */
  contracts?: ReadonlyMap<string, Contract>
  /**
   * what the branch of each proposal with an accept decision changes beyond its skill
   * (src/loop/proposal-scope.ts), by proposal id (another lane's copy of that id, with other
   * bytes: by signatureKey of its entry): an accept of such a branch does not stand
   */
  proposalScopes?: ReadonlyMap<string, readonly string[]>
  /**
   * For full replay: the scenarios a manifest ran, by id. Undefined for a manifest whose
   * scenarios this repository cannot open (not committed, or sealed without the key): its
   * evidence is then checked without replay, and stands at level `verified`, not `replayed`.
   */
  scenarios?: (manifest: string) => ReadonlyMap<string, Scenario> | undefined
  /** with `scenarios`: why a manifest's scenarios cannot be opened here (its episodes are then not replayed) */
  unreplayable?: (manifest: string) => string
  /** with `scenarios`: what was replayed, and what could not be (`exp fsck --replay` counts them) */
  replays?: ReplayLog
  /**
   * `scenarios/` at the base commit of each proposal a decision names (src/trust/dataset.ts),
   * by commit: a decision stands only on evaluations whose manifests pin it. Bases this clone
   * does not hold are left out (nothing to compare here).
   */
  datasets?: ReadonlyMap<string, CommittedDataset>
}

/** The episodes (verifications) whose traces the trust checks replayed, and those they could not, with why. */
export class ReplayLog {
  readonly replayed = new Set<string>()
  readonly missed = new Map<string, {manifest: string; reason: string}>()

  done(verification: string): void {
    this.replayed.add(verification)
    this.missed.delete(verification)
  }

  miss(verification: string, manifest: string, reason: string): void {
    if (!this.replayed.has(verification)) this.missed.set(verification, {manifest, reason})
  }
}

export interface TrustProblem {
  class: TrustProblemClass
  /** the record (evaluation, decision) or the merge commit */
  id: string
  lane?: string
  ref?: string
  commit?: string
  reason: string
}

export function trustSettings(policy: PromotionPolicy | undefined): TrustSettings {
  const ev = policy?.evidence
  return {evaluators: ev?.evaluators?.length ? ev.evaluators : ['world'], requireSigned: ev?.require_signed_evidence ?? false, ...(ev?.signers?.length ? {signers: ev.signers} : {})}
}
