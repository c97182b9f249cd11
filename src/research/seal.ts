import {existsSync} from 'node:fs'
import {chmod, mkdir, rm, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {loadScenarioDir, type LoadedFile} from '../scenarios/load.js'
import {assertNoBrokenHeldOut, unsealedHeldOut} from '../scenarios/holdout.js'
import {readSealed} from '../scenarios/sealed-load.js'
import {readWorkFile} from '../work-file.js'
import {SEALED_FILE, keyId, newKey, sealFiles, unsealFiles, type SealedFileEntry} from '../scenarios/sealed.js'
import {ExpError} from '../errors/index.js'
import {writeOutputFile} from '../write-output.js'

export interface SealResult {
  /** the sealed file, relative to the scenarios folder's parent */
  file: string
  /** every held-out scenario file in it now */
  sealed: string[]
  /** plain files sealed by this call and removed from the work tree */
  removed: string[]
  key_id: string
}

/**
 * Seal the held-out split of a scenarios folder: every scenario file whose split is
 * `holdout` goes into `holdout.sealed` (with those already sealed there), encrypted with
 * `key`; the plain files are removed from the work tree. Idempotent: with nothing new to
 * seal, the sealed file is left as it is. A file that looks held-out and does not parse
 * stops it before anything is written (assertSealable).
 */
export async function sealHoldout(scenariosDir: string, key: Buffer): Promise<SealResult> {
  const target = path.join(scenariosDir, SEALED_FILE)
  const loaded = await assertSealable(scenariosDir)
  const byName = new Map<string, SealedFileEntry>()
  if (existsSync(target)) for (const f of unsealFiles(await readSealed(target), key, target)) byName.set(f.name, f)
  const plain = loaded.filter(f => f.scenario?.split === 'holdout')
  for (const f of plain) byName.set(path.basename(f.file), {name: path.basename(f.file), content: (await readWorkFile(f.file)).toString('utf8')})
  if (!byName.size) throw new ExpError('E_NOT_FOUND', `no held-out scenarios in ${scenariosDir}`, {hint: 'a held-out scenario has `split: holdout`; write some, then seal them'})
  if (plain.length || !existsSync(target)) {
    await writeOutputFile(target, sealFiles([...byName.values()], key))
    for (const f of plain) await rm(f.file)
  }
  return {file: path.join(path.basename(scenariosDir), SEALED_FILE), sealed: [...byName.keys()].sort(), removed: plain.map(f => path.basename(f.file)).sort(), key_id: keyId(key)}
}

/**
 * The folder's scenario files, when none of them looks held-out without parsing (else
 * E_SCHEMA naming each file:line, before anything is written: src/scenarios/holdout.ts).
 */
export async function assertSealable(scenariosDir: string): Promise<LoadedFile[]> {
  const loaded = await loadScenarioDir(scenariosDir)
  assertNoBrokenHeldOut(await unsealedHeldOut(loaded, false))
  return loaded
}

/** Write a new key to `file` (owner-only), refusing to replace one that exists. */
export async function writeNewKey(file: string): Promise<Buffer> {
  if (existsSync(file)) throw new ExpError('E_CONFLICT', `a held-out key already exists at ${file}`, {hint: 'keep it (the sealed split opens only with it), or move it away first to seal with a new one'})
  const key = newKey()
  await mkdir(path.dirname(file), {recursive: true})
  // wx: a new file, never through a link at its name
  await writeFile(file, `${key.toString('hex')}\n`, {mode: 0o600, flag: 'wx'})
  await chmod(file, 0o600)
  return key
}

/** What to tell a user about a key they must keep: where it is, how CI gets it. */
export function keyAdvice(file: string, key: Buffer): string[] {
  return [
    `the held-out key is in ${file} (outside the work tree, never committed; key id ${keyId(key)})`,
    'store it as a CI secret named EXP_HOLDOUT_KEY, e.g.: gh secret set EXP_HOLDOUT_KEY < ' + file,
    'anyone with the key can read the held-out split: share it only with evaluators',
  ]
}
