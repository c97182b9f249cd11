import {sha256Hex} from '../../records/index.js'
import type {PublicContract} from '../../contracts/types.js'

/**
 * The research agent interface (docs/research-protocol.md): what an agent is given to
 * propose the next attempt of a contract, and what it answers. It never sees the
 * evaluator's command internals, its private data, or held-out details: the public part
 * of the contract, the editable files as main has them, the public evidence of earlier
 * attempts (their edits and dev/held-out means), recalled knowledge, and a seed.
 */
export interface EditedFile {
  path: string
  /** the whole new content; null deletes the file */
  content: string | null
}

export interface AttemptEvidence {
  attempt: string
  ordinal: number
  lane: string
  state: string
  dev?: {mean?: number; outcome?: string}
  holdout?: {mean?: number}
  /** what its proposer said it tried */
  reason?: string
  /** the editable files as the attempt left them */
  files: EditedFile[]
}

export interface ResearchTask {
  protocol: 1
  contract: PublicContract
  /** the editable files at main's tip (every file of the editable scope that exists) */
  files: EditedFile[]
  evidence: AttemptEvidence[]
  knowledge: {id: string; text: string}[]
  /** candidates other lanes hold: propose something else */
  exclude: string[]
  seed: number
  ordinal: number
}

export interface ResearchMove {
  hypothesis: {statement: string; mechanism: string}
  /** whole files (within the editable scope), or a unified diff */
  edits?: EditedFile[]
  patch?: string
  reason: string
}

export interface ResearchAgent {
  name: string
  params?: Record<string, unknown>
  /** the next attempt, or null when the agent has nothing left to try */
  propose(task: ResearchTask): Promise<ResearchMove | null>
  close?(): Promise<void>
}

/** A move's identity: the same edits are the same candidate, whoever proposes them. */
export function moveKey(m: ResearchMove): string {
  return JSON.stringify(m.patch ?? [...(m.edits ?? [])].sort((a, b) => (a.path < b.path ? -1 : 1)))
}

/**
 * A move's identity as it goes into a record key: a digest of moveKey. The edits themselves
 * made keys of any length (a rewritten file of realistic size was over the 512 characters of
 * a key, and `exp research` stopped) and put file contents, secrets included, in a public key.
 */
export function moveDigest(m: ResearchMove): string {
  return sha256Hex(moveKey(m)).slice(0, 32)
}
