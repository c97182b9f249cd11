import os from 'node:os'
import {CREDENTIAL_SHAPES, REFUSED_SHAPES, joinedShapes} from './shapes.js'
import {encodedForms, withEncodedForms} from './encodings.js'

/**
 * Public-safe text: what events and the evidence graph pass every string through before it
 * leaves the process. Redaction is by value (secrets found in the environment), by shape
 * (things that look like keys or tokens) and by list (ids flagged private), so a secret
 * that reaches a message by any route is caught, not only the fields we thought of.
 */
export type Redact = (text: string) => string

export interface RedactOptions {
  /** values of variables whose names look secret (…KEY, …TOKEN, …SECRET, …PASSWORD) are masked */
  env?: NodeJS.ProcessEnv
  secrets?: readonly string[]
  /** ids to hide (held-out scenario ids when the split is private) */
  private?: readonly string[]
  /** the home folder, replaced by ~ (default os.homedir()) */
  home?: string
  /** replace every absolute path by <path> (public projections), not only home paths */
  paths?: boolean
}

export const MASK = '[redacted]'
export const PRIVATE = '[private]'

const SECRET_NAME = /KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH/i
// what is masked by its shape: a private key block first (whole when its end is there; the
// store refuses its first line), the credentials the store refuses (shapes.ts), and Stripe test keys
const SHAPES: RegExp[] = [
  /-----BEGIN (?:[A-Z]+ )*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END (?:[A-Z]+ )*PRIVATE KEY(?: BLOCK)?-----)?/g,
  ...CREDENTIAL_SHAPES.map(s => joinedShapes([s], 'g')),
  /(?<![A-Za-z0-9])[sr]k_test_[A-Za-z0-9]{16,}/g,
]
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi
// (where no letter or digit is before the name: npm's `:_authToken=` too, which a word boundary
// let through; `aws_secret_access_key = …` of an AWS credentials file)
const ASSIGNED = /(?<![A-Za-z0-9])((?:_?auth[_-]?token|api[_-]?key|access[_-]?token|(?:aws_)?secret[_-]?access[_-]?key|token|secret|password|passwd)["']?\s*[:=]\s*["']?)([^\s"',;}]{4,})/gi
// a password of a .netrc line (`machine host login me password …`), the base64 `auth` of a docker config
const NETRC = /(\bmachine\s+\S+(?:\s+login\s+\S+)?\s+password\s+)(\S+)/gi
const DOCKER_AUTH = /("auth"\s*:\s*")([A-Za-z0-9+/]{16,}={0,2})(?=")/g
const HOME_LIKE = /(?:\/home|\/Users)\/[^/\s"']+/g
const ABS_PATH = /(?<![\w.~-])(?:\/(?:[\w.@+-]+))+\/?|\b[A-Za-z]:\\[^\s"']*/g

// everything the store refuses by its shape, in one pattern: the last pass of the redactor
const REFUSED = joinedShapes(REFUSED_SHAPES, 'g')
/** passes of the last pass before it gives up on keeping anything of a text (two are the most a text needs: an AWS key id glued before a token) */
const SETTLE_PASSES = 8

// credentials in a URL: `scheme://user:password@`, and any userinfo of an http(s) URL (a token is often the user name)
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/@]+)@/gi

/** `text` with the credentials of every URL in it masked (`https://[redacted]@host/…`): what exp prints of a remote. */
export function maskUrlCredentials(text: string): string {
  // (no URL without `://`: the pattern, which may start at any word, is not run over text without one)
  if (!text.includes('://')) return text
  return text.replace(URL_USERINFO, (all, scheme: string, info: string) => (info.includes(':') || /^https?:/i.test(scheme) ? `${scheme}${MASK}@` : all))
}

/**
 * `text` with each of `values` masked wherever it stands, longest first, whatever its length:
 * the few known values of one exchange (the credentials sent to a remote, which it may echo),
 * not the environment at large (makeRedactor, which leaves out short values).
 */
export function maskValues(text: string, values: readonly string[]): string {
  let out = text
  for (const x of [...values].sort((a, b) => b.length - a.length)) if (x) out = out.split(x).join(MASK)
  return out
}

/** `s` as a literal inside a RegExp */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

export function makeRedactor(o: RedactOptions = {}): Redact {
  const secrets = [...(o.secrets ?? [])]
  for (const [k, v] of Object.entries(o.env ?? {})) if (v && SECRET_NAME.test(k)) secrets.push(v)
  // short values ("x", "1") would mangle ordinary text; a value re-encoded (hex, base64 at any
  // alignment, percent-encoded) is masked too (encodings.ts)
  const literal = withEncodedForms(secrets.filter(s => s.length >= 8)).sort((a, b) => b.length - a.length)
  const byValue = literal.length ? new RegExp(literal.map(escapeRegExp).join('|'), 'g') : undefined
  const priv = (o.private ?? []).filter(Boolean)
  const byId = priv.length ? new RegExp(`(?<![\\w-])(?:${[...priv].sort((a, b) => b.length - a.length).map(escapeRegExp).join('|')})(?![\\w-])`, 'g') : undefined
  const home = o.home ?? os.homedir()
  const once = (text: string): string => {
    let s = text
    // known values first, wherever they stand (one may hold the home folder)
    if (byValue) s = s.replace(byValue, MASK)
    // then the home folder, before any shape: a shape starts where no letter or digit is before
    // it, so a token glued to the home path (`/home/aliceghp_…`) was left alone, and then read
    // `~ghp_…`, which the store refuses (a run stopped by its agent's answer, a mine by a reply)
    if (home && home !== '/') s = s.split(home).join('~')
    s = s.replace(HOME_LIKE, '~')
    for (const re of SHAPES) s = s.replace(re, MASK)
    s = maskUrlCredentials(s).replace(BEARER, `$1 ${MASK}`).replace(ASSIGNED, `$1${MASK}`).replace(NETRC, `$1${MASK}`).replace(DOCKER_AUTH, `$1${MASK}`)
    if (byId) s = s.replace(byId, PRIVATE)
    if (o.paths) s = s.replace(ABS_PATH, '<path>')
    return settle(s, byValue)
  }
  // the same short texts come again and again (every key of every object, tool names, ids: a
  // replayed episode is redacted whole), and each costs ~20 passes of patterns: what this
  // redactor made of one is kept (a redactor's patterns never change)
  const seen = new Map<string, string>()
  return text => {
    if (text.length > MEMO_LENGTH) return once(text)
    let out = seen.get(text)
    if (out === undefined) {
      out = once(text)
      if (seen.size >= MEMO_SIZE) seen.clear()
      seen.set(text, out)
    }
    return out
  }
}

/** the longest text a redactor remembers, and how many it remembers before it forgets them all */
const MEMO_LENGTH = 256
const MEMO_SIZE = 8192

/**
 * `s` with whatever the store would still refuse by its shape masked (src/redact/secrets.ts: the
 * same list, shapes.ts), and the known values again, until nothing is left: a replacement can
 * put a boundary before a token that had none (`AKIA…ghp_…`: the key id masked, the token then
 * starts after `]`). So what a redactor hands on never stops a write; after SETTLE_PASSES
 * passes (no text needs more than two) nothing of the text is kept.
 */
function settle(text: string, byValue: RegExp | undefined): string {
  let s = text
  for (let pass = 0; pass < SETTLE_PASSES; pass++) {
    const next = (byValue ? s.replace(byValue, MASK) : s).replace(REFUSED, MASK)
    if (next === s) return s
    s = next
  }
  return MASK
}

/** A copy of a JSON-like value with every string passed through `redact` (keys included). */
export function redactDeep<T>(value: T, redact: Redact): T {
  if (typeof value === 'string') return redact(value) as T
  if (Array.isArray(value)) return value.map(v => redactDeep(v, redact)) as T
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    // (defined, not assigned: a key `__proto__` assigned would set the copy's prototype, and the
    // copy would then read as something its JSON does not say)
    for (const [k, v] of Object.entries(value)) Object.defineProperty(out, redact(k), {value: redactDeep(v, redact), enumerable: true, writable: true, configurable: true})
    return out as T
  }
  return value
}

/** `redact`, and the held-out key masked too: hex (either case), base64, base64url, at any alignment (encodings.ts). */
export function withKey(redact: Redact, key: Buffer | undefined): Redact {
  if (!key) return redact
  return withSecrets(redact, encodedForms(key))
}

/** `redact`, and these values masked too (the variables a run hands its agent: agents/command/sandbox.ts, passedSecrets). */
export function withSecrets(redact: Redact, secrets: readonly string[]): Redact {
  if (!secrets.length) return redact
  const masked = makeRedactor({secrets: [...secrets], home: '/'})
  return text => redact(masked(text))
}
