import {createCipheriv, createDecipheriv, createHash, createHmac, randomBytes} from 'node:crypto'
import {SealedSplitError} from '../errors/index.js'

/**
 * The sealed held-out split (docs/trust.md): every held-out scenario file, encrypted with
 * AES-256-GCM into one committed text file. Only an evaluator holding the key (a CI
 * secret, or a key file outside the work tree) decrypts it, in memory. The header is
 * authenticated with the ciphertext, and names the key by a one-way id, so a wrong key
 * and a damaged file are told apart.
 */
export const SEALED_FILE = 'holdout.sealed'
const MAGIC = 'exp-sealed-holdout v1'

export interface SealedFileEntry {
  /** file name inside the scenarios folder, e.g. hold-access-by-name.yaml */
  name: string
  content: string
}

/** A 32-byte key from its text form: 64 hex digits, or base64 of 32 bytes. */
export function parseKey(text: string, source: string): Buffer {
  const t = text.trim()
  const key = /^[0-9a-fA-F]{64}$/.test(t) ? Buffer.from(t, 'hex') : /^[A-Za-z0-9+/_-]{43}=?$/.test(t) ? Buffer.from(t, 'base64') : undefined
  if (!key || key.length !== 32) throw new SealedSplitError(`the held-out key in ${source} is not 32 bytes (64 hex digits or base64)`, 'generate one with `exp seal --new-key`, or copy it again from where it was stored')
  return key
}

export function newKey(): Buffer {
  return randomBytes(32)
}

/** A public, one-way name of a key: tells which key sealed a file without revealing it. */
export function keyId(key: Buffer): string {
  return createHash('sha256').update('exp-holdout-key-id\0').update(key).digest('hex').slice(0, 16)
}

/** Held-out scenario ids as public records name them: a keyed hash, stable for one key. */
export function sealedScenarioId(key: Buffer, scenario: string): string {
  return `hs-${createHmac('sha256', key).update(`scenario\0${scenario}`).digest('hex').slice(0, 24)}`
}

export function sealFiles(files: readonly SealedFileEntry[], key: Buffer): string {
  const iv = randomBytes(12)
  const header = [MAGIC, 'cipher: aes-256-gcm', `key-id: ${keyId(key)}`, `iv: ${iv.toString('base64')}`, `files: ${files.length}`]
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  cipher.setAAD(Buffer.from(header.join('\n')))
  const plain = Buffer.from(JSON.stringify({version: 1, files: [...files].sort((a, b) => (a.name < b.name ? -1 : 1))}))
  const body = Buffer.concat([cipher.update(plain), cipher.final()])
  const lines = body.toString('base64').match(/.{1,76}/g) ?? []
  return [...header, `tag: ${cipher.getAuthTag().toString('base64')}`, '', ...lines, ''].join('\n')
}

export interface SealedHeader {
  keyId: string
  files: number
}

export function sealedHeader(text: string, file: string): SealedHeader & {iv: Buffer; tag: Buffer; aad: Buffer; body: Buffer} {
  const [head = '', rest = ''] = splitOnce(text.replace(/\r\n/g, '\n'), '\n\n')
  const lines = head.split('\n')
  const field = (name: string) => lines.find(l => l.startsWith(`${name}: `))?.slice(name.length + 2).trim()
  if (lines[0] !== MAGIC || field('cipher') !== 'aes-256-gcm') throw new SealedSplitError(`${file} is not a sealed held-out file (${MAGIC})`, 'seal the held-out split again with `exp seal`')
  const kid = field('key-id')
  const iv = field('iv')
  const tag = field('tag')
  const files = Number(field('files'))
  if (!kid || !iv || !tag || !Number.isInteger(files)) throw new SealedSplitError(`${file}: the header is damaged`, 'restore the file from git (`git checkout -- scenarios/holdout.sealed`)')
  const aad = Buffer.from(lines.filter(l => !l.startsWith('tag: ')).join('\n'))
  return {keyId: kid, files, iv: Buffer.from(iv, 'base64'), tag: Buffer.from(tag, 'base64'), aad, body: Buffer.from(rest.replace(/\s+/g, ''), 'base64')}
}

/** Decrypt a sealed file in memory; a wrong key or any change to the file is an error. */
export function unsealFiles(text: string, key: Buffer, file: string): SealedFileEntry[] {
  const h = sealedHeader(text, file)
  if (h.keyId !== keyId(key)) throw new SealedSplitError(`${file} was sealed with another key (key id ${h.keyId}, this key is ${keyId(key)})`, 'use the key this split was sealed with (the CI secret EXP_HOLDOUT_KEY), or seal it again with this key')
  let plain: Buffer
  try {
    const d = createDecipheriv('aes-256-gcm', key, h.iv)
    d.setAAD(h.aad)
    d.setAuthTag(h.tag)
    plain = Buffer.concat([d.update(h.body), d.final()])
  } catch {
    throw new SealedSplitError(`${file} does not decrypt: it was changed after sealing`, 'restore it from git, or seal the held-out split again')
  }
  const doc = JSON.parse(plain.toString('utf8')) as {version: number; files: SealedFileEntry[]}
  return doc.files
}

function splitOnce(s: string, sep: string): [string, string] {
  const i = s.indexOf(sep)
  return i < 0 ? [s, ''] : [s.slice(0, i), s.slice(i + sep.length)]
}
