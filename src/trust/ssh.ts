import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import {sshKeygen} from '../ssh/keygen.js'

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

/** The header lines git stores a signature as: `gpgsig` and continuation lines that start with a space. */
export function signatureHeader(signature: string): string {
  return `gpgsig ${signature.split('\n').join('\n ')}`
}

/**
 * Checks SSH signatures against one allowed-signers text (the file committed on main).
 * Answers the principal whose key made a good signature, or why there is none. One temp
 * folder per verifier; results are kept by commit.
 */
export class SignatureVerifier {
  private dir: Promise<string> | undefined
  private n = 0
  private readonly seen = new Map<string, Promise<{principal?: string; reason?: string}>>()

  constructor(private readonly allowedSigners: string) {}

  verify(oid: string, commit: Buffer): Promise<{principal?: string; reason?: string}> {
    let hit = this.seen.get(oid)
    if (!hit) this.seen.set(oid, (hit = this.check(commit)))
    return hit
  }

  private async check(commit: Buffer): Promise<{principal?: string; reason?: string}> {
    const {payload, signature} = splitSignature(commit)
    if (!signature) return {reason: 'the commit is not signed'}
    if (!signature.includes('BEGIN SSH SIGNATURE')) return {reason: 'the commit carries a signature that is not an SSH signature'}
    const dir = await this.folder()
    const allowed = path.join(dir, 'allowed_signers')
    const sig = path.join(dir, `${++this.n}.sig`)
    await writeFile(sig, `${signature}\n`)
    const found = await sshKeygen(['-Y', 'find-principals', '-f', allowed, '-s', sig], '')
    const principal = found.code === 0 ? found.stdout.split('\n')[0]?.trim() : undefined
    if (!principal) {
      await rm(sig, {force: true})
      return {reason: 'signed by a key that is not in the allowed signers'}
    }
    const ok = await sshKeygen(['-Y', 'verify', '-f', allowed, '-I', principal, '-n', 'git', '-s', sig], payload)
    await rm(sig, {force: true})
    return ok.code === 0 ? {principal} : {reason: `the signature does not verify: ${ok.stderr.trim() || ok.stdout.trim()}`}
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
