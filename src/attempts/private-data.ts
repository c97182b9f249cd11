import {existsSync, rmSync} from 'node:fs'
import {mkdir, mkdtemp, readFile, readdir, rm, writeFile} from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import {matchesAny} from '../gate/glob.js'
import {sealFiles, unsealFiles} from '../scenarios/sealed.js'
import {SealedSplitError} from '../errors/index.js'
import type {Contract} from '../contracts/types.js'
import {CONTRACTS_DIR} from '../contracts/load.js'
import type {Workspace} from '../workspace/port.js'
import {writeOutputFile} from '../write-output.js'
import {readWorkFile, refuseLinkOnTheWay} from '../work-file.js'
import {onInterrupt} from '../evals/evaluator/interrupt.js'

/**
 * A contract's evaluator-only data (`private_data` globs), sealed like the held-out split:
 * one committed file `.research/contracts/<name>.private.sealed`, opened in memory with the
 * held-out key and written to a temporary folder that only the evaluator command is told
 * of (EXP_PRIVATE_DIR). Neither the attempt's work tree nor its agent ever holds it.
 */
export const privatePath = (contract: string) => `${CONTRACTS_DIR}/${contract}.private.sealed`

async function walk(root: string, dir = ''): Promise<string[]> {
  const out: string[] = []
  for (const e of await readdir(path.join(root, dir), {withFileTypes: true})) {
    if (e.name === '.git') continue
    const rel = dir ? `${dir}/${e.name}` : e.name
    if (e.isDirectory()) out.push(...(await walk(root, rel)))
    else if (e.isFile()) out.push(rel)
  }
  return out
}

/** Seal the private data of a contract from the work tree (and remove the plain files). */
export async function sealPrivateData(root: string, contract: Contract, key: Buffer): Promise<{file: string; sealed: string[]; removed: string[]}> {
  const file = path.join(root, privatePath(contract.name))
  // (the plain files are found by a walk that follows no link; the sealed file is written
  // into .research/contracts/, never through a link there)
  refuseLinkOnTheWay(root, file)
  const byName = new Map<string, string>()
  // (the sealed file itself may be a link a repository commits: read only when it is a regular file)
  if (existsSync(file)) for (const f of unsealFiles((await readWorkFile(file, Infinity)).toString('utf8'), key, file)) byName.set(f.name, f.content)
  const plain = (await walk(root)).filter(p => matchesAny(p, contract.private_data))
  for (const p of plain) byName.set(p, await readFile(path.join(root, p), 'utf8'))
  if (!byName.size) return {file: privatePath(contract.name), sealed: [], removed: []}
  if (plain.length || !existsSync(file)) {
    await writeOutputFile(file, sealFiles([...byName.entries()].map(([name, content]) => ({name, content})), key))
    for (const p of plain) await rm(path.join(root, p))
  }
  return {file: privatePath(contract.name), sealed: [...byName.keys()].sort(), removed: plain.sort()}
}

/** The name its unsealed folders start with in the temporary folder: `exp-private-<pid>-…` */
export const PRIVATE_PREFIX = 'exp-private-'

/** Open the sealed private data committed at `commit` into a new temporary folder (undefined: the contract has none). */
export async function unsealPrivateData(ws: Workspace, commit: string, contract: Contract, key: Buffer | undefined): Promise<{dir: string; cleanup: () => Promise<void>} | undefined> {
  if (!contract.private_data.length) return undefined
  // (the data is the base's, and may be large: no limit)
  const bytes = await ws.readFile(commit, privatePath(contract.name), {max: Infinity})
  if (!bytes) return undefined
  if (!key) throw new SealedSplitError(`contract ${contract.name} has sealed evaluator-only data and no key was found`, 'set EXP_HOLDOUT_KEY (in CI: a repository secret), or put the key in .git/exp/holdout.key')
  // (named for this process: `exp gc` removes the folder of one that was killed — PRIVATE_PREFIX)
  const dir = await mkdtemp(path.join(os.tmpdir(), `${PRIVATE_PREFIX}${process.pid}-`))
  // removed if exp is interrupted (Ctrl-C) while it is there: the data is in clear in it
  const forget = onInterrupt(() => rmSync(dir, {recursive: true, force: true}))
  try {
    for (const f of unsealFiles(bytes.toString('utf8'), key, privatePath(contract.name))) {
      const to = path.join(dir, f.name)
      if (!to.startsWith(dir + path.sep)) continue
      await mkdir(path.dirname(to), {recursive: true})
      await writeFile(to, f.content, {mode: 0o600})
    }
  } catch (e) {
    forget()
    await rm(dir, {recursive: true, force: true})
    throw e
  }
  return {
    dir,
    cleanup: async () => {
      await rm(dir, {recursive: true, force: true})
      forget()
    },
  }
}
