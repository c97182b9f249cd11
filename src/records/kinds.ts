import type {RecordEnvelope} from './types.generated.js'
import {UnknownKindError} from '../errors/index.js'

export type Kind = RecordEnvelope['kind']

export interface KindInfo {
  /** two-letter id prefix */
  prefix: string
  /** folder of the cumulative lane tree that holds this kind's records */
  dir: string
  /** current body schema version (records of older versions are still read: see validate.ts) */
  version: number
}

/** Every record kind, its id prefix and where its records live in a lane tree (`<dir>/<first 2 hex of the id>/<id>.json`). */
export const KINDS: Readonly<Record<Kind, KindInfo>> = {
  manifest: {prefix: 'mf', dir: 'experience/manifests', version: 1},
  trace: {prefix: 'tr', dir: 'experience/traces', version: 1},
  verification: {prefix: 'vr', dir: 'experience/verifications', version: 1},
  evaluation: {prefix: 'el', dir: 'experience/evaluations', version: 1},
  evidence: {prefix: 'ed', dir: 'knowledge/evidence', version: 2},
  knowledge: {prefix: 'kn', dir: 'knowledge/candidates', version: 2},
  hypothesis: {prefix: 'hy', dir: 'research/hypotheses', version: 1},
  recall: {prefix: 'rc', dir: 'research/recalls', version: 1},
  proposal: {prefix: 'pr', dir: 'research/proposals', version: 1},
  decision: {prefix: 'dc', dir: 'research/decisions', version: 1},
  claim: {prefix: 'cl', dir: 'research/claims', version: 1},
  release: {prefix: 'rl', dir: 'research/releases', version: 1},
  note: {prefix: 'nt', dir: 'research/notes', version: 1},
  attempt: {prefix: 'at', dir: 'research/attempts', version: 1},
  observation: {prefix: 'ob', dir: 'experience/observations', version: 1},
  verdict: {prefix: 'vd', dir: 'experience/verdicts', version: 1},
}

export const KIND_NAMES = Object.keys(KINDS) as Kind[]

const BY_PREFIX = new Map(KIND_NAMES.map(k => [KINDS[k].prefix, k]))

const CONSTANT = new Map(KIND_NAMES.map(k => [k, k]))

/** The kind name as the one constant string (a name sliced out of a text is a string of its own). */
export function kindConstant(s: string): Kind | undefined {
  return CONSTANT.get(s as Kind)
}

export function isKind(s: string): s is Kind {
  return Object.prototype.hasOwnProperty.call(KINDS, s)
}

export function assertKind(s: string): Kind {
  if (!isKind(s)) throw new UnknownKindError(s, KIND_NAMES)
  return s
}

export function kindOfId(id: string): Kind | undefined {
  return BY_PREFIX.get(id.slice(0, 2))
}

const TAGS = new Map(KIND_NAMES.map(k => [k, `${k}@${KINDS[k].version}`]))

export function schemaTag(kind: Kind): string {
  return TAGS.get(kind) ?? `${kind}@${KINDS[kind].version}`
}
