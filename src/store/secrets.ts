import type {Prepared} from '../records/index.js'
import {SecretInRecordError} from '../errors/index.js'
import {findSecret, secretScanner, type SecretScanner} from '../redact/secrets.js'

/** what of a draft the store looks at for a secret besides its artifacts (a draft, or what will be in one) */
export interface DraftParts {
  kind: string
  body: unknown
  key?: string
  volatile?: Record<string, unknown>
}

/** an escape of a JSON string (`\n`, `\"`, `\\`, `\u001b`) */
const JSON_ESCAPE = /\\(?:u[0-9a-fA-F]{4}|[^u])/g

/**
 * Refuse a batch in which any record holds a credential (redact/secrets.ts), before anything
 * is written: the lane's name, the body, the key, the volatile part and the artifacts' content
 * are looked at, and the error names the field or the artifact.
 */
export function refuseSecrets(prepared: readonly Prepared[], scan: SecretScanner = secretScanner(), lane?: string): void {
  // the lane's name becomes a ref name and every record's `lane` (`--lane ghp_…` by mistake)
  const inLane = lane === undefined ? undefined : scan(lane)
  if (inLane) throw new SecretInRecordError(prepared[0]?.draft.kind ?? 'a', 'the lane name (--lane, EXP_LANE or git config exp.lane)', inLane)
  for (const p of prepared) {
    const d = p.draft
    const f = secretInDraft(d, scan, p.bodyJson)
    if (f) throw new SecretInRecordError(d.kind, f.field, f.what)
    // an artifact's content as bytes (the shapes and most values are ASCII; a binary file passes through)
    for (const a of p.artifacts ?? []) {
      // (its name is recorded too: the record's artifacts list and the file's path)
      const inName = scan(a.ref.name)
      if (inName) throw new SecretInRecordError(d.kind, 'an artifact\'s name', inName)
      const what = scan(Buffer.from(a.content.buffer, a.content.byteOffset, a.content.byteLength).toString('latin1'))
      if (what) throw new SecretInRecordError(d.kind, `the artifact ${JSON.stringify(a.ref.name)}`, what)
    }
  }
}

/**
 * Where the first secret in a draft's body, key or volatile part is (the field, named without
 * the value), as the store looks for it before a write; undefined when there is none. The
 * runner asks it of an episode's records before they are appended (src/evals/runner/session.ts).
 */
export function secretInDraft(d: DraftParts, scan: SecretScanner, bodyJson: string = JSON.stringify(d.body)): {field: string; what: string} | undefined {
  // (the body's JSON in one pass, each escape read as the space it stands for — a token after
  // a newline is `\nghp_…` in JSON, where a letter stands before it; the field is looked for
  // only on a hit)
  if (scan(bodyJson.replace(JSON_ESCAPE, ' '))) {
    const f = findSecret(d.body, scan, 'body')
    if (f) return {field: f.path, what: f.what}
  }
  if (d.key !== undefined) {
    const what = scan(d.key)
    if (what) return {field: 'key', what}
  }
  if (d.volatile !== undefined) {
    const f = findSecret(d.volatile, scan, 'volatile')
    if (f) return {field: f.path, what: f.what}
  }
  return undefined
}

/**
 * Refuse drafts that are not prepared yet (their ids may depend on records still to be
 * written) as the store would refuse them, before anything of a command's work is written:
 * `exp mine` appends its evidence and then its claims, `exp propose` a recall and a hypothesis
 * before its proposal, and a refusal of the later batch left the earlier one written behind an
 * error that said nothing was. `hint` says what to do instead of the store's own.
 */
export function refuseDrafts(drafts: readonly DraftParts[], hint?: string, scan: SecretScanner = secretScanner()): void {
  for (const d of drafts) {
    const f = secretInDraft(d, scan)
    if (f) throw new SecretInRecordError(d.kind, f.field, f.what, hint)
  }
}
