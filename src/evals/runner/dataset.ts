import {existsSync} from 'node:fs'
import {readdir, readFile} from 'node:fs/promises'
import path from 'node:path'
import {hashObject} from '../../records/object-id.js'
import {checkIds, loadScenarioDir, loadSealedDir, readSealedBytes, sealedPath, formatProblem, type HoldoutKey, type Problem, type Scenario} from '../../scenarios/index.js'
import type {Split} from '../../records/types.js'
import {ExpError, SealedSplitError} from '../../errors/index.js'

export interface Dataset {
  dir: string
  /** git tree id of the folder's content (equals `git rev-parse HEAD:scenarios` when committed and clean) */
  tree: string
  scenarios: Scenario[]
  problems: Problem[]
  /** held-out from the sealed file: its blob, and the key it was opened with (for keyed scenario ids) */
  sealed?: {path: string; blob: string; key: Buffer}
}

export interface DatasetOptions {
  strict?: boolean
  /** the held-out key (findHoldoutKey): needed for the held-out split when it is sealed */
  key?: HoldoutKey
}

/** The git tree id of a folder as it is on disk, computed in process (files and subfolders, no .git). */
export async function treeOid(dir: string): Promise<string> {
  const entries = await readdir(dir, {withFileTypes: true})
  const parts: {name: string; mode: string; oid: string}[] = []
  for (const e of entries) {
    if (e.name === '.git') continue
    const p = path.join(dir, e.name)
    if (e.isDirectory()) parts.push({name: e.name, mode: '40000', oid: await treeOid(p)})
    else if (e.isFile()) parts.push({name: e.name, mode: '100644', oid: hashObject('blob', await readFile(p))})
  }
  parts.sort((a, b) => {
    const x = a.mode === '40000' ? `${a.name}/` : a.name
    const y = b.mode === '40000' ? `${b.name}/` : b.name
    return x < y ? -1 : x > y ? 1 : 0
  })
  return hashObject('tree', Buffer.concat(parts.map(p => Buffer.concat([Buffer.from(`${p.mode} ${p.name}\0`), Buffer.from(p.oid, 'hex')]))))
}

/**
 * The same tree id from a list of files (paths relative to the folder, blob ids): what
 * treeOid gives for a checkout of them. A committed folder is compared with a folder on disk
 * by it (every file as a plain file, as a checkout writes it), whichever Workspace holds it.
 */
export function treeOidOfFiles(files: readonly {path: string; blob: string}[]): string {
  type Dir = Map<string, Dir | string>
  const root: Dir = new Map()
  for (const f of files) {
    const parts = f.path.split('/')
    let d = root
    for (const part of parts.slice(0, -1)) {
      let next = d.get(part)
      if (typeof next !== 'object') d.set(part, (next = new Map()))
      d = next
    }
    d.set(parts[parts.length - 1]!, f.blob)
  }
  const hash = (d: Dir): string => {
    const parts = [...d].map(([name, v]) => (typeof v === 'string' ? {name, mode: '100644', oid: v} : {name, mode: '40000', oid: hash(v)}))
    parts.sort((a, b) => {
      const x = a.mode === '40000' ? `${a.name}/` : a.name
      const y = b.mode === '40000' ? `${b.name}/` : b.name
      return x < y ? -1 : x > y ? 1 : 0
    })
    return hashObject('tree', Buffer.concat(parts.map(p => Buffer.concat([Buffer.from(`${p.mode} ${p.name}\0`), Buffer.from(p.oid, 'hex')]))))
  }
  return hash(root)
}

/**
 * Load the scenarios of one split. Malformed or schema-invalid files are reported with
 * file:line and skipped (the run then ends non-zero), or stop the run under `strict`.
 */
export async function loadDataset(dir: string, split: Split, o: DatasetOptions = {}): Promise<Dataset> {
  const strict = o.strict ?? false
  let loaded
  try {
    loaded = await loadScenarioDir(dir)
  } catch (e) {
    // (no folder at all: exp is not set up here, most likely; say that, not the system call)
    const missing = !existsSync(dir)
    throw new ExpError('E_NOT_FOUND', missing ? `there is no scenarios folder at ${dir}` : `cannot read scenarios from ${dir}: ${(e as Error).message}`, {hint: 'pass --scenarios DIR, or run `exp init --example onboarding` to set up the built-in example'})
  }
  const sealedFile = sealedPath(dir)
  let sealed: Dataset['sealed']
  if (sealedFile) {
    // a sealed split is read from the sealed file only: plain held-out files beside it are ignored (exp seal removes them)
    loaded = loaded.filter(f => f.scenario?.split !== 'holdout')
    if (split === 'holdout') {
      if (!o.key) throw new SealedSplitError(`the held-out split is sealed (${path.relative(process.cwd(), sealedFile) || sealedFile}) and no key was found`, 'set EXP_HOLDOUT_KEY (in CI: a repository secret), or EXP_HOLDOUT_KEY_FILE, or put the key in .git/exp/holdout.key', {file: sealedFile})
      loaded = checkIds([...loaded, ...(await loadSealedDir(dir, o.key.key))])
      sealed = {path: path.basename(sealedFile), blob: hashObject('blob', await readSealedBytes(sealedFile)), key: o.key.key}
    }
  }
  const problems = loaded.flatMap(f => f.problems)
  if (strict && problems.length) throw new ExpError('E_SCHEMA', `${problems.length} scenario problem(s), first: ${formatProblem(problems[0]!)}`, {hint: 'run `exp scenarios lint` for all of them', data: {problems}})
  const scenarios = loaded.flatMap(f => (f.scenario && f.scenario.split === split ? [f.scenario] : [])).sort((a, b) => (a.id < b.id ? -1 : 1))
  if (!scenarios.length) throw new ExpError('E_NOT_FOUND', `no ${split} scenarios in ${dir}`, {hint: 'splits are train, validation and holdout; `exp scenarios list` shows what there is'})
  return {dir, tree: await treeOid(dir), scenarios, problems, ...(sealed ? {sealed} : {})}
}

/**
 * The scenarios of one split in folders on disk, by the tree id each folder's content has
 * (what the manifest of a run on it pins): what a recorded episode of that split can be
 * replayed against here. A folder that cannot be read is left out.
 */
export async function scenariosByTree(dirs: readonly string[], split: Split): Promise<Map<string, Map<string, Scenario>>> {
  const out = new Map<string, Map<string, Scenario>>()
  for (const dir of new Set(dirs)) {
    const tree = await treeOid(dir).catch(() => undefined)
    if (tree === undefined || out.has(tree)) continue
    const scenarios = new Map<string, Scenario>()
    for (const f of await loadScenarioDir(dir).catch(() => [])) if (f.scenario?.split === split) scenarios.set(f.scenario.id, f.scenario)
    out.set(tree, scenarios)
  }
  return out
}
