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
  keyType: string
  key: Buffer
}

/** git's allowed-signers format: `principals [options] keytype base64 [comment]`, one per line. */
export function parseAllowedSigners(text: string): AllowedSigner[] | undefined {
  const out: AllowedSigner[] = []
  for (const raw of text.split('\n')) {
    const line = raw.trim()
    if (!line || line.startsWith('#')) continue
    const words = line.match(/(?:[^\s"]+|"[^"]*")+/g) ?? []
    const principals = words.shift()!.replace(/^"|"$/g, '').split(',')
    let namespaces: string[] | undefined
    while (words.length && !/^(ssh-|ecdsa-|sk-)/.test(words[0]!)) {
      const opt = words.shift()!
      const m = /^namespaces="([^"]*)"$/.exec(opt)
      if (m) namespaces = m[1]!.split(',')
      else return undefined // cert-authority, valid-before...: ssh-keygen knows them
    }
    const [keyType, b64] = words
    if (!keyType || !b64) continue
    out.push({principals, ...(namespaces ? {namespaces} : {}), keyType, key: Buffer.from(b64, 'base64')})
  }
  return out
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

/**
 * Verify an armored SSH signature of `payload` in `namespace` against allowed signers.
 * Answers the principal, a reason it does not verify, or undefined when this code cannot
 * tell (a key type or option it does not read). Never throws, whatever the signature holds.
 */
export function verifySshSig(armored: string, payload: Buffer, allowed: readonly AllowedSigner[], namespace = 'git'): {principal?: string; reason?: string} | undefined {
  const sig = parseSshSig(armored)
  if ('reason' in sig) return sig
  if (sig.keyType !== 'ssh-ed25519') return undefined
  if (sig.namespace !== namespace) return {reason: `signed for namespace ${sig.namespace}, not ${namespace}`}
  if (sig.hashAlg !== 'sha512' && sig.hashAlg !== 'sha256') return {reason: `unknown hash ${sig.hashAlg}`}
  const signer = allowed.find(a => a.keyType === sig.keyType && a.key.equals(sig.publicKey))
  if (!signer) return {reason: 'signed by a key that is not in the allowed signers'}
  if (signer.namespaces && matchPatternList(namespace, signer.namespaces) !== 1) return {reason: `the allowed signer may not sign in namespace ${namespace}`}
  return ed25519Verifies(sig, payload) ? {principal: signer.principals[0]!} : {reason: 'the signature does not verify'}
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
