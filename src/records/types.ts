import type * as G from './types.generated.js'
import type {Kind} from './kinds.js'

export type * from './types.generated.js'

/** Body type of each record kind (generated from schemas/records/*.schema.json). */
export interface BodyByKind {
  manifest: G.ManifestBody
  trace: G.TraceBody
  verification: G.VerificationBody
  evaluation: G.EvaluationBody
  evidence: G.EvidenceBody
  knowledge: G.KnowledgeBody
  hypothesis: G.HypothesisBody
  recall: G.RecallBody
  proposal: G.ProposalBody
  decision: G.DecisionBody
  claim: G.ClaimBody
  release: G.ReleaseBody
  note: G.NoteBody
  attempt: G.AttemptBody
  observation: G.ObservationBody
  verdict: G.VerdictBody
}

/** A sealed, stored record: the envelope with a typed body. */
export type ExpRecord<K extends Kind = Kind> = {
  [P in K]: Omit<G.RecordEnvelope, 'kind' | 'body'> & {kind: P; body: BodyByKind[P]}
}[K]

/** What a writer hands to the store: the store adds id, digest, lane, lamport and created_at. */
export interface RecordDraft<K extends Kind = Kind> {
  kind: K
  body: BodyByKind[K]
  cites?: readonly string[]
  /** explicit idempotency key (e.g. an attempt id); the id then derives from the key, not the content */
  key?: string
  volatile?: Record<string, unknown>
}

export type {Kind} from './kinds.js'
