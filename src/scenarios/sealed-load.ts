import {existsSync} from 'node:fs'
import {readWorkFile} from '../work-file.js'
import path from 'node:path'
import {parseScenario, type LoadedFile} from './load.js'
import {SEALED_FILE, sealedHeader, unsealFiles} from './sealed.js'

/** The sealed held-out file of a scenarios folder, when there is one. */
export function sealedPath(dir: string): string | undefined {
  const p = path.join(dir, SEALED_FILE)
  return existsSync(p) ? p : undefined
}

/** How many scenarios the sealed file holds, and under which key id: readable without the key. */
export async function sealedSummary(dir: string): Promise<{path: string; files: number; keyId: string} | undefined> {
  const p = sealedPath(dir)
  if (!p) return undefined
  const h = sealedHeader(await readSealed(p), p)
  return {path: p, files: h.files, keyId: h.keyId}
}

/** Decrypt the sealed file in memory and parse each scenario in it (file names: holdout.sealed#<name>). */
export async function loadSealedDir(dir: string, key: Buffer): Promise<LoadedFile[]> {
  const p = path.join(dir, SEALED_FILE)
  return unsealFiles(await readSealed(p), key, p).map(f => parseScenario(f.content, `${p}#${f.name}`))
}

/** A sealed file holds every held-out scenario: read up to a larger bound than one file (a device or FIFO is refused all the same). */
const SEALED_MAX = 256 * 1024 * 1024

export async function readSealed(p: string): Promise<string> {
  return (await readSealedBytes(p)).toString('utf8')
}

/** The sealed file's bytes, as readSealed reads them (what a manifest's blob id is of). */
export async function readSealedBytes(p: string): Promise<Buffer> {
  return readWorkFile(p, SEALED_MAX)
}
