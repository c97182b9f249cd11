import type {Split} from './types.generated.js'
import type {ExpRecord} from './types.js'
import type {Kind} from './kinds.js'

/**
 * The few body fields of a record that research projections join on (which hypothesis a
 * claim or proposal is about, a decision's verdict, an evaluation's role, split and
 * effect). The ledger index keeps them beside kind, lane, lamport and cites, so that a
 * frontier over 10,000 hypotheses does not parse 60,000 record bodies. They are a pure
 * function of the immutable body: a missing or stale copy changes no answer, only speed (an
 * index edited on purpose can: docs/trust.md, what the cache can still do).
 */
export interface FactsByKind {
  hypothesis: {metric: string; direction: 'increase' | 'decrease'; split?: Split; margin?: number; parent?: string}
  claim: {hypothesis: string; holder: string; expires_at: string; created_at: string; renews?: string}
  release: {hypothesis: string; holder: string; claim?: string}
  note: {action?: 'comment' | 'retire' | 'reopen'; about?: string[]}
  proposal: {branch: string; hypothesis?: string}
  evaluation: {split: Split; role?: string; proposal?: string; passed: number; failed: number; invalid: number; success_rate: number; diff?: number; regressions?: number; baseline?: string}
  decision: {proposal: string; verdict: 'accept' | 'reject'; evaluations: string[]; hypothesis?: string; merge?: {commit: string; branch: string}}
  attempt: {contract: string; ordinal: number; branch: string; hypothesis?: string; resumes?: string}
  verdict: {attempt: string; split: 'dev' | 'holdout'; repetition: number; valid: boolean; outcome: 'positive' | 'neutral' | 'negative' | 'invalid'; resume?: 'retry' | 'retry_longer' | 'abandon'}
}

export type FactKind = keyof FactsByKind
export type Facts<K extends FactKind = FactKind> = FactsByKind[K]

export const FACT_KINDS: ReadonlySet<Kind> = new Set<Kind>(['hypothesis', 'claim', 'release', 'note', 'proposal', 'evaluation', 'decision', 'attempt', 'verdict'])

export function hasFacts(kind: Kind): kind is FactKind {
  return FACT_KINDS.has(kind)
}

/** The facts of a record, or undefined for kinds that have none. Optional fields are left out when absent. */
export function recordFacts(r: ExpRecord): Facts | undefined {
  switch (r.kind) {
    case 'hypothesis': {
      const x = r.body.expected_effect
      return clean({metric: x.metric, direction: x.direction, split: x.split, margin: x.margin, parent: r.body.parent})
    }
    case 'claim': return clean({hypothesis: r.body.hypothesis, holder: r.body.holder, expires_at: r.body.expires_at, created_at: r.created_at, renews: r.body.renews})
    case 'release': return clean({hypothesis: r.body.hypothesis, holder: r.body.holder, claim: r.body.claim})
    case 'note': return clean({action: r.body.action, about: r.body.about})
    case 'proposal': return clean({branch: r.body.branch, hypothesis: r.body.hypothesis})
    case 'evaluation': {
      const b = r.body
      const c = b.comparison
      return clean({split: b.split, role: b.role, proposal: b.proposal, passed: b.passed, failed: b.failed, invalid: b.invalid, success_rate: b.success_rate, diff: c?.diff, regressions: c?.regressions.length, baseline: c?.baseline})
    }
    case 'decision': {
      const b = r.body
      return clean({proposal: b.proposal, verdict: b.verdict, evaluations: b.evaluations, hypothesis: b.hypothesis, merge: b.merge && {commit: b.merge.commit, branch: b.merge.branch}})
    }
    case 'attempt': return clean({contract: r.body.contract.name, ordinal: r.body.ordinal, branch: r.body.branch, hypothesis: r.body.hypothesis, resumes: r.body.resumes})
    case 'verdict': return clean({attempt: r.body.attempt, split: r.body.split, repetition: r.body.repetition, valid: r.body.valid, outcome: r.body.outcome, resume: r.body.needs_retry?.resume.action})
    default: return undefined
  }
}

/**
 * One-line JSON of a record's facts for the index: no tabs or newlines (JSON escapes them)
 * and ASCII only, so the index can be read as latin1 without decoding UTF-8.
 */
export function encodeFacts(r: ExpRecord): string | undefined {
  const f = recordFacts(r)
  return f && JSON.stringify(f).replace(/[\u007f-\uffff]/g, c => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

function clean<T extends object>(o: T): T {
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] === undefined) delete o[k]
  return o
}
