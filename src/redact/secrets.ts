import {existsSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {escapeRegExp} from './index.js'
import {REFUSED_SHAPES, joinedShapes} from './shapes.js'
import {encodedForms} from './encodings.js'

/**
 * Finding a secret in what is about to become a record. Records are append-only and copied
 * to every clone that syncs: a credential written into one cannot be taken back without
 * rewriting history. What agents and evaluators print is masked before it gets this far
 * (index.ts, makeRedactor); this is the last check, at the store's one write path, for
 * whatever reaches it another way (`exp append` of a pasted note, a tool's own records).
 *
 * It refuses on less than the redactor masks — values of variables whose names say they are
 * credentials, and the shapes of well-known credentials — so that ordinary text ("the
 * password: reset flow", an author's e-mail address) is never refused.
 */

/** what is refused by its shape: the credentials the redactor masks on the same terms, and a few forms it masks in its own way (shapes.ts) */
const SHAPES: [RegExp, string][] = REFUSED_SHAPES.map(s => [s.re, s.what])

/** names of variables that hold credentials: …_KEY, …_TOKEN, …_SECRET, …PASSWORD, …_CREDENTIALS */
const CREDENTIAL_NAME = /(?:^|_)(?:API_?KEY|KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$|SECRET|PASSWORD/i
/** values shorter than this are not looked for (they would match ordinary text) */
const MIN_VALUE = 12

export interface SecretScanner {
  /** what the first secret in `text` is, described without its value; undefined when there is none */
  (text: string): string | undefined
}

/** A scanner for the shapes and for the values of `env`'s credential variables. */
export function secretScanner(env: NodeJS.ProcessEnv = process.env): SecretScanner {
  const values = new Map<string, string>()
  for (const [name, value] of Object.entries(env)) {
    // (a variable that names a credential file, GOOGLE_APPLICATION_CREDENTIALS=/path/key.json,
    // holds a path, not the secret: a record may name the path)
    if (value && value.length >= MIN_VALUE && CREDENTIAL_NAME.test(name) && !values.has(value) && !isPath(value)) {
      values.set(value, name)
      // and the value re-encoded: hex, base64 at any alignment, percent-encoded (encodings.ts)
      for (const form of encodedForms(value)) if (!values.has(form)) values.set(form, name)
    }
  }
  // one pass over the text for all of them (the store checks every record it writes)
  const any = joinedShapes(REFUSED_SHAPES.filter(s => !s.needs), '', [...values.keys()].map(escapeRegExp))
  // (a shape that needs a literal is tried on text that holds it (shapes.ts), and the first
  // match in the text is the one described, as when all were one pattern)
  const gated = REFUSED_SHAPES.filter(s => s.needs)
  return text => {
    let m = any.exec(text)
    for (const g of gated) {
      if (!text.includes(g.needs!)) continue
      const n = g.re.exec(text)
      if (n && (!m || n.index < m.index)) m = n
    }
    if (!m) return undefined
    const hit = m[0]
    for (const [value, name] of values) if (hit.includes(value) || value.includes(hit)) return `the value of $${name}`
    return SHAPES.find(([re]) => re.test(hit))?.[1] ?? 'a credential'
  }
}

function isPath(value: string): boolean {
  return /^(?:\/|~\/|\.{1,2}\/|[A-Za-z]:\\)/.test(value) && existsSync(value.startsWith('~/') ? path.join(os.homedir(), value.slice(2)) : value)
}

/**
 * Where in a JSON-like value the first string holding a secret is (`body.messages[2].content`,
 * keys included), and what it is; undefined when none does.
 */
export function findSecret(value: unknown, scan: SecretScanner, at = ''): {path: string; what: string} | undefined {
  if (typeof value === 'string') {
    const what = scan(value)
    return what ? {path: at, what} : undefined
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const f = findSecret(value[i], scan, `${at}[${i}]`)
      if (f) return f
    }
    return undefined
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const inKey = scan(k)
      if (inKey) return {path: `${at || '(the top)'}, in a key`, what: inKey}
      const f = findSecret(v, scan, at ? `${at}.${k}` : k)
      if (f) return f
    }
  }
  return undefined
}
