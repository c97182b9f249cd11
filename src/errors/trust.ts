import {ExpError} from './base.js'

/** The held-out split is sealed and cannot be opened here (no key, wrong key, damaged file). */
export class SealedSplitError extends ExpError {
  constructor(message: string, hint: string, data: Record<string, unknown> = {}) {
    super('E_SEALED', message, {data, hint})
  }
}

/** Evidence a decision would rest on does not re-derive (forged, inconsistent, unsigned). */
export class UntrustedEvidenceError extends ExpError {
  constructor(message: string, hint: string, data: Record<string, unknown> = {}) {
    super('E_UNTRUSTED', message, {data, hint})
  }
}

/** The agent cannot be started in its sandbox (a path in the spec outside the repository, ...). */
export class SandboxError extends ExpError {
  constructor(message: string, hint: string, data: Record<string, unknown> = {}) {
    super('E_SANDBOX', message, {data, hint})
  }
}
