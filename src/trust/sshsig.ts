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

function matches(pattern: string, name: string): boolean {
  return new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`).test(name)
}

/**
 * Verify an armored SSH signature of `payload` in `namespace` against allowed signers.
 * Answers the principal, a reason it does not verify, or undefined when this code cannot
 * tell (a key type or option it does not read).
 */
export function verifySshSig(armored: string, payload: Buffer, allowed: readonly AllowedSigner[], namespace = 'git'): {principal?: string; reason?: string} | undefined {
  const b64 = armored.replace(/-----(BEGIN|END) SSH SIGNATURE-----/g, '').replace(/\s+/g, '')
  let publicKey: Buffer
  let sigNamespace: string
  let reserved: Buffer
  let hashAlg: string
  let signature: Buffer
  try {
    const r = new Reader(Buffer.from(b64, 'base64'))
    if (r.bytes(6).toString() !== 'SSHSIG' || r.u32() !== 1) return {reason: 'not an SSHSIG version 1 signature'}
    publicKey = r.string()
    sigNamespace = r.string().toString()
    reserved = r.string()
    hashAlg = r.string().toString()
    signature = r.string()
  } catch {
    return {reason: 'a damaged signature'}
  }
  const pk = new Reader(publicKey)
  const keyType = pk.string().toString()
  if (keyType !== 'ssh-ed25519') return undefined
  const raw = pk.string()
  if (sigNamespace !== namespace) return {reason: `signed for namespace ${sigNamespace}, not ${namespace}`}
  if (hashAlg !== 'sha512' && hashAlg !== 'sha256') return {reason: `unknown hash ${hashAlg}`}
  const signer = allowed.find(a => a.keyType === keyType && a.key.equals(publicKey))
  if (!signer) return {reason: 'signed by a key that is not in the allowed signers'}
  if (signer.namespaces && !signer.namespaces.some(n => matches(n, namespace))) return {reason: `the allowed signer may not sign in namespace ${namespace}`}
  const sig = new Reader(signature)
  if (sig.string().toString() !== 'ssh-ed25519') return {reason: 'a signature of another key type'}
  const bytes = sig.string()
  const signed = Buffer.concat([Buffer.from('SSHSIG'), sshString(namespace), sshString(reserved), sshString(hashAlg), sshString(createHash(hashAlg).update(payload).digest())])
  // an ed25519 public key as SPKI DER: the fixed prefix of its algorithm identifier, then the 32 bytes
  const key = createPublicKey({key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), raw]), format: 'der', type: 'spki'})
  if (!verify(null, signed, key, bytes)) return {reason: 'the signature does not verify'}
  return {principal: signer.principals[0]!}
}
