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

/** A record about to be written holds a credential (records are append-only and copied to every clone). */
export class SecretInRecordError extends ExpError {
  constructor(kind: string, field: string, what: string, hint = 'take the secret out of the input (write [redacted] in its place) and append again; nothing was written') {
    super('E_SECRET', `${kind} record: ${field} holds ${what}; records are append-only and copied to every clone that syncs, so it is not written`, {
      data: {kind, field, what},
      hint,
    })
  }
}
