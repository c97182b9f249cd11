import {ExpError} from './base.js'
import {clipped} from './shown.js'
import path from 'node:path'
import {PACKAGE_ROOT} from '../package-root.js'

export {ExpError, isExpError, exitFor} from './base.js'
export type {ExpErrorOptions} from './base.js'
export {PatchConflictError, type PatchConflictReason} from './skills.js'
export {CandidateTakenError, ClaimedError, HypothesisStateError} from './research.js'
export {SealedSplitError, UntrustedEvidenceError, SandboxError, SecretInRecordError} from './trust.js'
export {WorktreeError, WorkTreeBehindError, BoundaryError, AttemptVerdictError, BudgetError, ResearchAgentError} from './contracts.js'

/** The folder is not inside a git repository (work tree or bare). */
export class NotARepoError extends ExpError {
  constructor(dir: string) {
    super('E_NOT_A_REPO', `not a git repository (or any parent up to /): ${dir}`, {
      data: {dir},
      hint: 'run the command inside a git clone, or create one with `git init`',
    })
  }
}

/** The repository is one exp cannot work in (SHA-256 object names). */
export class UnsupportedRepoError extends ExpError {
  constructor(dir: string, why: string, hint: string) {
    super('E_UNSUPPORTED_REPO', `exp cannot work in the repository at ${dir}: ${why}`, {data: {dir}, hint})
  }
}

/** A record, ref, lane, proposal or file named by the user does not exist. */
export class NotFoundError extends ExpError {
  constructor(what: string, id: string, hint?: string, message = `unknown ${what}: ${clipped(id)}`) {
    super('E_NOT_FOUND', message, {data: {what, id}, hint: hint ?? `list what exists with \`exp ledger\``})
  }
}

/** A file could not be parsed (YAML/JSON); line and column are 1-based. */
export class ParseError extends ExpError {
  constructor(file: string, detail: string, line?: number, col?: number) {
    const at = line ? `${file}:${line}${col ? `:${col}` : ''}` : file
    super('E_PARSE', `${at}: ${detail}`, {data: {file, line, col}, hint: 'fix the syntax at that position and run the command again'})
  }
}

export interface SchemaProblem {
  path: string
  message: string
}

/** problems a schema error names in its message (the rest are in its data) */
const SHOWN_PROBLEMS = 3

/**
 * A document does not match its JSON Schema; names the offending fields, a field that is not
 * allowed first: a misspelt field is both that and a required one missing, and "body.text is
 * required (+1 more)" hid the misspelling.
 */
export class SchemaError extends ExpError {
  readonly problems: SchemaProblem[]
  constructor(subject: string, problems: SchemaProblem[], file?: string) {
    const where = file && file !== subject ? `${file}: ` : ''
    const shown = [...problems.filter(p => p.message === 'is not an allowed field'), ...problems.filter(p => p.message !== 'is not an allowed field')].slice(0, SHOWN_PROBLEMS)
    const more = problems.length - shown.length
    super('E_SCHEMA', `${where}${subject} is invalid: ${shown.length ? shown.map(p => `${p.path || '(root)'} ${p.message}`).join('; ') : 'schema mismatch'}` + (more > 0 ? ` (+${more} more)` : ''), {
      data: {subject, file, problems},
      // (schemas/ is the package's, not the repository's: a user's clone has none)
      hint: `the allowed fields and values are in the JSON Schemas of exp, under ${path.join(PACKAGE_ROOT, 'schemas')}`,
    })
    this.problems = problems
  }
}

export class UnknownKindError extends ExpError {
  constructor(kind: string, known: readonly string[], before = '') {
    super('E_UNKNOWN_KIND', `unknown record kind: ${clipped(kind)}`, {data: {kind, known}, hint: `${before}use one of: ${known.join(', ')}`})
  }
}

export class InvalidNameError extends ExpError {
  constructor(what: string, name: string, why: string) {
    super('E_INVALID_NAME', `invalid ${what} ${JSON.stringify(clipped(name))}: ${why}`, {data: {what, name}, hint: `a ${what} uses letters, digits and . _ - @ + (no '..', no control characters, no leading '-' or '.')`})
  }
}

/** Same id, different content: records are immutable, so this is never overwritten. */
/** A ref moved from where exp expected it (another process promoted, appended or moved it meanwhile). */
export function refMoved(ref: string, now: string | undefined, expected: string | undefined): ExpError {
  return new ExpError('E_CONFLICT', `${ref} moved to ${now?.slice(0, 12) ?? '(none)'} while exp was working (expected ${expected?.slice(0, 12) ?? '(none)'})`, {hint: 'run the command again: it starts from the new tip'})
}

export class ConflictError extends ExpError {
  constructor(id: string, existingDigest: string, newDigest: string, lane?: string) {
    super('E_CONFLICT', `record ${id} already exists with a different digest (${existingDigest.slice(0, 12)} vs ${newDigest.slice(0, 12)})`, {
      data: {id, existingDigest, newDigest, lane},
      hint: 'records are immutable: append a new record that supersedes it instead',
    })
  }
}

export class LockedError extends ExpError {
  constructor(ref: string, owner: string, waitedMs: number) {
    const lane = ref.startsWith('refs/')
    super('E_LOCKED', `${lane ? 'lane ref' : 'lock'} ${ref} is locked by ${owner} (waited ${Math.round(waitedMs)} ms)`, {
      data: {ref, owner, waitedMs},
      hint: lane ? 'another writer is appending to this lane; retry later, or remove the .lock file if that process is gone' : `another exp process holds it; retry later, or remove .git/${ref}.lock if that process is gone`,
    })
  }
}

export class CorruptObjectError extends ExpError {
  constructor(what: string, detail: string, data: Record<string, unknown> = {}, hint = 'run `exp fsck` to list every damaged record; fetch the lane again from a remote that has it') {
    super('E_CORRUPT', `corrupted or unreadable ${what}: ${detail}`, {data: {what, ...data}, hint})
  }
}

export class UsageError extends ExpError {
  constructor(message: string, hint?: string) {
    super('E_USAGE', message, {hint})
  }
}

export class InvalidInputError extends ExpError {
  constructor(message: string, data: Record<string, unknown> = {}, hint?: string) {
    super('E_INVALID_INPUT', message, {data, hint})
  }
}
export {UnknownAgentError, AgentSpecError, LlmError, AgentUnavailableError, AgentInvalidError} from './agent.js'
export {SplitError, splitRefused} from './mining.js'

/** A record whose file would exceed the size limit (git config exp.maxRecordBytes, default 1 MiB). */
export class RecordTooLargeError extends ExpError {
  constructor(kind: string, id: string, bytes: number, limit: number) {
    super('E_TOO_LARGE', `${kind} record ${id} is ${bytes} bytes, more than the limit of ${limit}`, {
      data: {kind, id, bytes, limit},
      hint: 'store large content as an artifact (`exp append --artifact FILE`) and keep the record small, or raise the limit with `git config exp.maxRecordBytes SIZE`',
    })
  }
}

/** `exp sync` could not talk to the remote (fetch or push failed as a whole). */
export class SyncError extends ExpError {
  constructor(message: string, hint: string) {
    super('E_SYNC', message, {hint})
  }
}

interface RejectedRef {
  ref: string
  kind: string
  reason: string
  direction?: string
}

/** The refs and why, the first ten of them (all of them are in the error's data). */
function listRejected(rs: readonly RejectedRef[]): string {
  return `${rs
    .slice(0, 10)
    .map(r => `${r.ref} (${r.reason})`)
    .join('; ')}${rs.length > 10 ? `; and ${rs.length - 10} more` : ''}`
}

/** Lanes that moved on both sides: never overwritten; everything else was synced. (A ref that only moved while sync ran is said to have moved.) */
export class DivergedError extends ExpError {
  constructor(rejected: readonly RejectedRef[], data: Record<string, unknown>) {
    const raced = rejected.every(r => r.kind === 'moved')
    const held = rejected.filter(r => r.kind === 'held')
    const rest = rejected.filter(r => r.kind !== 'held')
    super('E_DIVERGED', raced ? `${rejected.length} ref(s) moved while sync ran and were left for the next one: ${listRejected(rejected)}` : `${rest.length} ref(s) diverged and were not overwritten: ${listRejected(rest)}${held.length ? `; ${held.length} lane(s) held back, their records citing records of a diverged lane: ${listRejected(held)}` : ''}`, {
      data,
      hint: raced ? 'another exp sync (or an append) ran at the same time: run exp sync again' : 'give each writer its own lane (--lane, EXP_LANE or git config exp.lane); a diverged lane is never clobbered; the other refs were synced',
    })
  }
}

/** The remote refused refs (a hook, receive.fsckObjects, permissions); its reasons are in the message. */
export class RefusedError extends ExpError {
  constructor(refused: readonly RejectedRef[], diverged: readonly RejectedRef[], data: Record<string, unknown>) {
    const pushes = refused.every(x => x.direction === 'push')
    super('E_REFUSED', `${pushes ? 'the remote refused' : 'refused'} ${refused.length} ref(s): ${listRejected(refused)}${diverged.length ? `; and ${diverged.length} diverged: ${listRejected(diverged)}` : ''}`, {
      data,
      hint: `${pushes ? 'the reason is the remote\'s (run `exp fsck` if it names a bad object)' : 'a pushed ref the remote refused has the remote\'s reason; a fetched one that is not a commit was not taken from the remote'}; the other refs were synced`,
    })
  }
}

/** A file read whole from a commit that is larger than its read allows (Workspace.readFile, FILE_MAX). */
export class FileTooLargeError extends ExpError {
  constructor(file: string, commit: string, bytes: number, limit: number) {
    super('E_TOO_LARGE', `${file} at ${commit.slice(0, 12)} is ${bytes} bytes, more than the ${limit} bytes exp reads of a file from a commit`, {
      data: {file, commit, bytes, limit},
      hint: 'the files exp reads from a commit (SKILL.md, PURPOSE.yaml, contracts, policies, signers) are small: keep long material in other files of the skill or contract, and data in the editable scope (which is checked out, not read)',
    })
  }
}

/** A commit larger than exp reads of one (OBJECT_MAX, 16 MiB): exp never writes one; a branch was given it by hand or by a push. */
export class CommitTooLargeError extends ExpError {
  constructor(commit: string, bytes: number, limit: number) {
    super('E_TOO_LARGE', `commit ${commit.slice(0, 12)} is ${bytes} bytes, more than the ${limit} bytes exp reads of a commit`, {
      data: {commit, bytes, limit},
      hint: 'no commit exp or git commit makes comes near that size (a message of megabytes): take it out of the branch (`git rebase -i`) and push again',
    })
  }
}

/** An artifact larger than git config exp.maxArtifactBytes (default 100 MiB). */
export class ArtifactTooLargeError extends ExpError {
  constructor(name: string, bytes: number, limit: number) {
    super('E_TOO_LARGE', `artifact ${name} is ${bytes} bytes, more than the limit of ${limit}`, {
      data: {name, bytes, limit},
      hint: 'keep very large files outside the repository (git LFS, an object store) and record their digest, or raise the limit with `git config exp.maxArtifactBytes SIZE`',
    })
  }
}

/** exp could not pack itself for a workflow to install (`exp ci init`): npm missing or failing. */
export class PackError extends ExpError {
  constructor(message: string, hint: string) {
    super('E_PACK', message, {hint})
  }
}
