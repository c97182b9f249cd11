import {createHash} from 'node:crypto'
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import {sshKeygen} from '../ssh/keygen.js'
import {admit, identities, parseAllowedSigners, parseSshSig, verifySshSig, type AllowedSigner, type SignatureVerdict, type SshSig} from './sshsig.js'

/** The commit split into its signed payload and its SSH signature (none when unsigned). */
export function splitSignature(commit: Buffer): {payload: Buffer; signature?: string} {
  const text = commit.toString('utf8')
  const end = text.indexOf('\n\n')
  const head = (end < 0 ? text : text.slice(0, end)).split('\n')
  const at = head.findIndex(l => l.startsWith('gpgsig '))
  if (at < 0) return {payload: commit}
  let stop = at + 1
  while (stop < head.length && head[stop]!.startsWith(' ')) stop++
  const signature = [head[at]!.slice('gpgsig '.length), ...head.slice(at + 1, stop).map(l => l.slice(1))].join('\n')
  const rest = [...head.slice(0, at), ...head.slice(stop)].join('\n')
  return {payload: Buffer.from(end < 0 ? rest : rest + text.slice(end), 'utf8'), signature}
}

/** 9999-12-31T23:59:59Z: the last second ssh-keygen and Date both read */
const LAST_SECOND = 253402300799

/** The commit's committer time in seconds (git verifies a signature at it), if its header has one. */
export function committerTime(commit: Buffer): number | undefined {
  const end = commit.indexOf('\n\n')
  const head = commit.toString('latin1', 0, end < 0 ? commit.length : end)
  const m = /^committer .* (\d+) [+-]\d{4}$/m.exec(head)
  const seconds = m ? Number(m[1]) : NaN
  // (any lane owner writes it: a time past year 9999 is no date, and would throw in formatting)
  return seconds <= LAST_SECOND ? seconds : undefined
}

/** Why ssh-keygen found no principal: a key outside its validity says so, in ssh-keygen's words. */
function notFound(stderr: string): string {
  const why = stderr.split('\n').find(l => /expired|not yet valid/.test(l))
  return why ? `signed by a key outside its validity in the allowed signers at the commit's time (${why.replace(/^[^:]*:\d+: /, '')}); sign the record again with a current key` : 'signed by a key that is not in the allowed signers'
}

/** The header lines git stores a signature as: `gpgsig` and continuation lines that start with a space. */
export function signatureHeader(signature: string): string {
  return `gpgsig ${signature.split('\n').join('\n ')}`
}

/**
 * Verdicts already reached in this process, by allowed-signers text and commit: a verdict
 * depends on nothing else (the commit's bytes are its id, the time is the commit's own), and
 * a process that builds several authorities (a research loop, promote) would otherwise run
 * ssh-keygen again for every RSA-signed record each time. Bounded: cleared when full.
 */
const settled = new Map<string, SignatureVerdict>()
const SETTLED_MAX = 100_000

function remember(key: string, verdict: SignatureVerdict): void {
  if (settled.size >= SETTLED_MAX) settled.clear()
  settled.set(key, verdict)
}

/**
 * Checks SSH signatures against one allowed-signers text (the file committed on main).
 * Answers the principals the key that made a good signature may sign as, or why there are
 * none. One temp folder per verifier; results are kept by commit.
 */
export class SignatureVerifier {
  private dir: Promise<string> | undefined
  private n = 0
  private parsed: AllowedSigner[] | null | undefined
  private readonly seen = new Map<string, Promise<SignatureVerdict>>()
  private readonly file: string

  constructor(private readonly allowedSigners: string) {
    this.file = createHash('sha256').update(allowedSigners).digest('hex')
  }

  verify(oid: string, commit: Buffer): Promise<SignatureVerdict> {
    const key = `${this.file}\0${oid}`
    const done = settled.get(key)
    if (done) return Promise.resolve(done)
    let hit = this.seen.get(oid)
    if (!hit) {
      this.seen.set(oid, (hit = this.check(commit)))
      void hit.then(v => remember(key, v), () => {})
    }
    return hit
  }

  private async check(commit: Buffer): Promise<SignatureVerdict> {
    const {payload, signature} = splitSignature(commit)
    if (!signature) return {reason: 'the commit is not signed'}
    if (!signature.includes('BEGIN SSH SIGNATURE')) return {reason: 'the commit carries a signature that is not an SSH signature'}
    const sig = parseSshSig(signature)
    if ('reason' in sig) return sig
    // git checks the allowed signers at the commit's time, not now: a key retired with
    // valid-before keeps what it signed while it was valid
    const time = committerTime(commit) ?? Date.now() / 1000
    this.parsed ??= parseAllowedSigners(this.allowedSigners) ?? null
    // options this code does not read (cert-authority), or a certificate: ssh-keygen decides it all
    if (!this.parsed || sig.keyType.includes('-cert-')) return this.keygenDecides(signature, payload, time)
    return verifySshSig(signature, payload, this.parsed, time) ?? this.keygenChecks(sig, signature, payload, time)
  }

  /**
   * A key type other than ed25519 (RSA, ECDSA, security keys): who it may sign as is read
   * from the allowed signers here, as for ed25519, and ssh-keygen checks the cryptography.
   */
  private async keygenChecks(sig: SshSig, signature: string, payload: Buffer, time: number): Promise<SignatureVerdict> {
    const admitted = admit(sig, this.parsed!, 'git', time)
    if (!admitted.principals) return admitted
    const ok = await this.withSignature(signature, file => sshKeygen(['-Y', 'check-novalidate', '-n', 'git', '-s', file], payload))
    return ok.code === 0 ? admitted : {reason: `the signature does not verify: ${ok.stderr.trim() || ok.stdout.trim()}`}
  }

  /** An allowed-signers file this code does not read: ssh-keygen finds the principals and verifies, at the commit's time. */
  private async keygenDecides(signature: string, payload: Buffer, time: number): Promise<SignatureVerdict> {
    const allowed = path.join(await this.folder(), 'allowed_signers')
    const at = `-Overify-time=${new Date(time * 1000).toISOString().replace(/[-:T]|\.\d+/g, '')}`
    return this.withSignature(signature, async file => {
      // one entry of the matching line's principals a line (negations too)
      const found = await sshKeygen(['-Y', 'find-principals', '-f', allowed, '-s', file, at], '')
      const principals = found.code === 0 ? identities(found.stdout.split('\n').map(l => l.trim())) : []
      if (!principals.length) return {reason: notFound(found.stderr)}
      const ok = await sshKeygen(['-Y', 'verify', '-f', allowed, '-I', principals[0]!, '-n', 'git', '-s', file, at], payload)
      return ok.code === 0 ? {principals} : {reason: `the signature does not verify: ${ok.stderr.trim() || ok.stdout.trim()}`}
    })
  }

  /** `use` with the signature in a file of this verifier's folder, removed after. */
  private async withSignature<T>(signature: string, use: (file: string) => Promise<T>): Promise<T> {
    const file = path.join(await this.folder(), `${++this.n}.sig`)
    await writeFile(file, `${signature}\n`)
    try {
      return await use(file)
    } finally {
      await rm(file, {force: true})
    }
  }

  private folder(): Promise<string> {
    this.dir ??= (async () => {
      const d = await mkdtemp(path.join(os.tmpdir(), 'exp-sig-'))
      await writeFile(path.join(d, 'allowed_signers'), this.allowedSigners)
      return d
    })()
    return this.dir
  }

  async close(): Promise<void> {
    if (this.dir) await rm(await this.dir, {recursive: true, force: true})
  }
}
