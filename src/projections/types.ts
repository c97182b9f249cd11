/** The status vocabulary of hypotheses (docs/frontier.md). Never stored: derived from the record stream (status.ts). */
export const STATUSES = ['proposed', 'active', 'running', 'needs_retry', 'supported', 'contradicted', 'promoted', 'retired'] as const
export type HypothesisStatus = (typeof STATUSES)[number]

export function isStatus(s: string): s is HypothesisStatus {
  return (STATUSES as readonly string[]).includes(s)
}

/** One step of a hypothesis' history: the status after `record` (ledger order). */
export interface StatusStep {
  status: HypothesisStatus
  /** the record that caused the step; absent for a claim lapsing at `now` */
  record?: string
  lamport?: number
  reason: string
}

/** The illegal transitions `exp fsck` reports (docs/frontier.md lists them). */
export const TRANSITION_RULES = [
  'unknown_hypothesis',
  'precedes_hypothesis',
  'evaluation_without_proposal',
  'promoted_without_holdout',
  'promoted_without_dev_evidence',
  'accept_while_retired',
  'conflicting_decisions',
  'claim_while_retired',
  'release_without_claim',
  'claim_not_own',
  'claim_out_of_bounds',
  'reopen_not_retired',
] as const
export type TransitionRule = (typeof TRANSITION_RULES)[number]

export interface TransitionProblem {
  rule: TransitionRule
  /** the hypothesis concerned (as named by the record, even when unknown) */
  hypothesis: string
  /** the offending record */
  record: string
  lane: string
  ref: string
  commit: string
  message: string
}

/** A holder's uninterrupted hold on a hypothesis: a claim and its renewals, until released or lapsed. */
export interface Tenure {
  holder: string
  /** the claim that started the tenure: its ledger position decides between lanes */
  since: string
  /** the latest claim of the tenure (the one a release names) */
  claim: string
  claims: string[]
  expires_at: string
  released?: string
}

export interface ClaimState {
  /** the first live tenure in ledger order: the hypothesis is held by this lane */
  holder?: Tenure
  /** other live tenures, which lost to `holder` (an offline race) and wait for it to end */
  waiting: Tenure[]
}

export interface HypothesisView {
  id: string
  lane: string
  lamport: number
  status: HypothesisStatus
  /** the status without the claim overlay: what the evidence alone says */
  evidence_status: HypothesisStatus
  /** records that justify the status */
  because: string[]
  /** evaluations and decisions recorded about it */
  evidence: number
  proposals: string[]
  claim?: {holder: string; claim: string; since: string; expires_at: string}
  /** lanes whose live claims lost to `claim` in ledger order */
  contenders: string[]
  /** promoted only: the merge the accepting decision names */
  merge?: {commit: string; branch: string}
  history: StatusStep[]
}
