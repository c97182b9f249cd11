import {createHash, createPublicKey, verify} from 'node:crypto'

/**
 * OpenSSH's signature format (PROTOCOL.sshsig), verified in process for ed25519 keys, the
 * kind `ssh-keygen -t ed25519` makes and git's SSH signing uses most: a process start per
 * signature would cost more than everything else `exp frontier` does. Anything else (RSA,
 * ECDSA, certificates, options we do not read) answers `undefined`: the caller falls back
 * to ssh-keygen itself.
 */
class Reader {
  private at = 0
  constructor(private readonly b: Buffer) {}
  bytes(n: number): Buffer {
    if (this.at + n > this.b.length) throw new Error('truncated')
    const out = this.b.subarray(this.at, this.at + n)
    this.at += n
    return out
  }
  u32(): number {
    return this.bytes(4).readUInt32BE(0)
  }
  string(): Buffer {
    return this.bytes(this.u32())
  }
  get done(): boolean {
    return this.at === this.b.length
  }
}

const sshString = (b: Buffer | string) => {
  const x = typeof b === 'string' ? Buffer.from(b) : b
  const len = Buffer.alloc(4)
  len.writeUInt32BE(x.length)
  return Buffer.concat([len, x])
}

export interface AllowedSigner {
  principals: string[]
  namespaces?: string[]
  /** valid-after="…" and valid-before="…", in seconds since the epoch */
  validAfter?: number
  validBefore?: number
  /** the option texts as written, for reasons */
  validity?: string
  keyType: string
  key: Buffer
}

/**
 * git's allowed-signers format: `principals [options] keytype base64 [comment]`, one per
 * line. Undefined when a line holds an option this code does not read (cert-authority, a
 * time it cannot parse): ssh-keygen then decides for the whole file.
 */
export function parseAllowedSigners(text: string): AllowedSigner[] | undefined {
  const out: AllowedSigner[] = []
  for (const raw of text.split('\n')) {
    const line = raw.trim()
    if (!line || line.startsWith('#')) continue
    const words = line.match(/(?:[^\s"]+|"[^"]*")+/g) ?? []
    const principals = words.shift()!.replace(/^"|"$/g, '').split(',')
    const options: Partial<AllowedSigner> = {}
    while (words.length && !/^(ssh-|ecdsa-|sk-)/.test(words[0]!)) {
      for (const opt of words.shift()!.match(/(?:[^,"]+|"[^"]*")+/g) ?? []) if (!readOption(opt, options)) return undefined
    }
    const [keyType, b64] = words
    if (!keyType || !b64) continue
    out.push({principals, ...options, keyType, key: Buffer.from(b64, 'base64')})
  }
  return out
}

/** One `name="value"` option into `into`; false for one this code does not read. */
function readOption(opt: string, into: Partial<AllowedSigner>): boolean {
  const m = /^([a-z-]+)="([^"]*)"$/i.exec(opt)
  if (!m) return false
  const [, name, value] = m as unknown as [string, string, string]
  if (name.toLowerCase() === 'namespaces') {
    into.namespaces = value.split(',')
    return true
  }
  const time = name.toLowerCase() === 'valid-after' || name.toLowerCase() === 'valid-before' ? absoluteTime(value) : undefined
  if (time === undefined) return false
  if (name.toLowerCase() === 'valid-after') into.validAfter = time
  else into.validBefore = time
  into.validity = [into.validity, `${name}="${value}"`].filter(Boolean).join(',')
  return true
}

/**
 * OpenSSH's parse_absolute_time: YYYYMMDD, YYYYMMDDHHMM or YYYYMMDDHHMMSS, in UTC with a
 * trailing Z (or UTC), else in local time as ssh-keygen on this machine reads it.
 */
export function absoluteTime(text: string): number | undefined {
  const utc = /^(.*?)(Z|UTC)$/i.exec(text)
  const digits = utc ? utc[1]! : text
  const m = /^(\d{4})(\d{2})(\d{2})(?:(\d{2})(\d{2})(\d{2})?)?$/.exec(digits)
  if (!m) return undefined
  const [y, mo, d, h, mi, se] = m.slice(1).map(x => Number(x ?? 0)) as [number, number, number, number, number, number]
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60) return undefined
  const ms = utc ? Date.UTC(y, mo - 1, d, h, mi, se) : new Date(y, mo - 1, d, h, mi, se).getTime()
  // 0 is "no limit" to OpenSSH, and a time before 1970 does not parse
  return Number.isFinite(ms) && ms > 0 ? ms / 1000 : undefined
}

/** Why `signer` is not valid at `time` (seconds), as ssh-keygen decides it; undefined when it is. */
function outsideValidity(signer: AllowedSigner, time: number): string | undefined {
  const at = Number.isFinite(time) && Math.abs(time) < 8e12 ? new Date(time * 1000).toISOString() : String(time)
  if (signer.validAfter !== undefined && time < signer.validAfter) return `not yet valid in allowed_signers (${signer.validity}) at the commit's time ${at}`
  if (signer.validBefore !== undefined && time > signer.validBefore) return `expired in allowed_signers (${signer.validity}) before the commit's time ${at}`
  return undefined
}

/** OpenSSH's match_pattern: `*` any run of characters, `?` any one; linear, no regular expression. */
export function matchPattern(name: string, pattern: string): boolean {
  let n = 0
  let p = 0
  let star = -1
  let from = 0
  while (n < name.length) {
    if (p < pattern.length && (pattern[p] === '?' || pattern[p] === name[n])) {
      n++
      p++
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p++
      from = n
    } else if (star >= 0) {
      p = star + 1
      n = ++from
    } else {
      return false
    }
  }
  while (pattern[p] === '*') p++
  return p === pattern.length
}

/**
 * OpenSSH's match_pattern_list over a comma list already split: 1 when an entry matches,
 * -1 when a negated entry (`!pattern`) matches — a refusal, whatever else matches — else 0.
 * ssh-keygen -Y verify (and so git) reads allowed_signers' principals and namespaces so.
 */
export function matchPatternList(name: string, patterns: readonly string[]): -1 | 0 | 1 {
  let found: 0 | 1 = 0
  for (const p of patterns) {
    const negated = p.startsWith('!')
    if (!matchPattern(name, negated ? p.slice(1) : p)) continue
    if (negated) return -1
    found = 1
  }
  return found
}

/** The fields of an SSHSIG blob (PROTOCOL.sshsig), the signer's key type read from its public key. */
export interface SshSig {
  publicKey: Buffer
  keyType: string
  namespace: string
  reserved: Buffer
  hashAlg: string
  signature: Buffer
}

/**
 * Read an armored SSH signature. Never throws: the bytes come from a commit header any lane
 * owner writes, and one exception here used to stop every trust view of the repository.
 */
export function parseSshSig(armored: string): SshSig | {reason: string} {
  const b64 = armored.replace(/-----(BEGIN|END) SSH SIGNATURE-----/g, '').replace(/\s+/g, '')
  try {
    const r = new Reader(Buffer.from(b64, 'base64'))
    if (r.bytes(6).toString('latin1') !== 'SSHSIG' || r.u32() !== 1) return {reason: 'not an SSHSIG version 1 signature'}
    const publicKey = r.string()
    const sig = {publicKey, keyType: new Reader(publicKey).string().toString('latin1'), namespace: r.string().toString('utf8'), reserved: r.string(), hashAlg: r.string().toString('latin1'), signature: r.string()}
    return r.done ? sig : {reason: 'a damaged signature (bytes after its end)'}
  } catch {
    return {reason: 'a damaged signature'}
  }
}

/** A signature's verdict: the identities it may stand for, or why it stands for none. */
export interface SignatureVerdict {
  /** the principals, as allowed_signers writes them, the signing key may sign as (none: refused) */
  principals?: string[]
  reason?: string
}

/**
 * The principals the key that made `sig` may sign as in `namespace` at `time` (seconds: the
 * commit's committer time, the time git verifies at — so retiring a key with valid-before
 * keeps what it signed before), from every allowed-signers line of that key, or why it may
 * sign as none. Cryptography is not checked here.
 */
export function admit(sig: SshSig, allowed: readonly AllowedSigner[], namespace: string, time: number): SignatureVerdict {
  const keyed = allowed.filter(a => a.keyType === sig.keyType && a.key.equals(sig.publicKey))
  const who = keyed[0] ? `${keyed[0].principals.join(',')}'s key ${fingerprint(sig.publicKey)}` : `key ${fingerprint(sig.publicKey)}`
  if (!keyed.length) return {reason: `signed by ${who}, which is not in the allowed signers`}
  const current = keyed.filter(a => !outsideValidity(a, time))
  if (!current.length) return {reason: `signed by ${who}, ${outsideValidity(keyed[0]!, time)!}; sign the record again with a current key`}
  const lines = current.filter(a => !a.namespaces || matchPatternList(namespace, a.namespaces) === 1)
  if (!lines.length) return {reason: `signed by ${who}, which the allowed signers do not let sign in namespace ${namespace}`}
  const principals = [...new Set(lines.flatMap(a => identities(a.principals)))]
  if (!principals.length) return {reason: `signed by ${who}, whose allowed_signers line names no principal it may sign as (only negations)`}
  return {principals}
}

/**
 * The entries of a principals list that name who may sign: not a negation, and not refused
 * by one (`ci@x,!ci@x` names nobody; ssh-keygen -Y verify -I ci@x refuses it too). A
 * pattern (`*@example.org`) is kept as written: it names no one identity, and counts only
 * for a policy `signers` entry that writes the same pattern (docs/trust.md).
 */
export function identities(principals: readonly string[]): string[] {
  return principals.filter(p => p && !p.startsWith('!') && matchPatternList(p, principals) === 1)
}

/** ssh-keygen's name for a key: SHA256 of its blob, base64 without padding. */
export function fingerprint(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`
}

/**
 * Verify an armored SSH signature of `payload` in `namespace` against allowed signers, at
 * `time` (seconds since the epoch). Answers the principals it may stand for, a reason it
 * does not verify, or undefined when this code cannot check its cryptography (a key type
 * other than ed25519: ssh-keygen does). Never throws, whatever the signature holds.
 */
export function verifySshSig(armored: string, payload: Buffer, allowed: readonly AllowedSigner[], time: number, namespace = 'git'): SignatureVerdict | undefined {
  const sig = parseSshSig(armored)
  if ('reason' in sig) return sig
  if (sig.keyType !== 'ssh-ed25519') return undefined
  if (sig.namespace !== namespace) return {reason: `signed for namespace ${sig.namespace}, not ${namespace}`}
  if (sig.hashAlg !== 'sha512' && sig.hashAlg !== 'sha256') return {reason: `unknown hash ${sig.hashAlg}`}
  const admitted = admit(sig, allowed, namespace, time)
  if (!admitted.principals) return admitted
  return ed25519Verifies(sig, payload) ? admitted : {reason: 'the signature does not verify'}
}

/** The ed25519 check itself; a key or signature of the wrong shape is one that does not verify. */
function ed25519Verifies(sig: SshSig, payload: Buffer): boolean {
  try {
    const pk = new Reader(sig.publicKey)
    pk.string()
    const raw = pk.string()
    const s = new Reader(sig.signature)
    if (s.string().toString('latin1') !== 'ssh-ed25519') return false
    const bytes = s.string()
    if (raw.length !== 32 || bytes.length !== 64 || !pk.done || !s.done) return false
    const signed = Buffer.concat([Buffer.from('SSHSIG'), sshString(sig.namespace), sshString(sig.reserved), sshString(sig.hashAlg), sshString(createHash(sig.hashAlg).update(payload).digest())])
    // an ed25519 public key as SPKI DER: the fixed prefix of its algorithm identifier, then the 32 bytes
    const key = createPublicKey({key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), raw]), format: 'der', type: 'spki'})
    return verify(null, signed, key, bytes)
  } catch {
    return false
  }
}
