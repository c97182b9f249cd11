import {globToRegExp, matchesAny} from './glob.js'
import {UNSAFE_TEXT, uEscape} from '../records/index.js'

export interface ScopeReport {
  changed: string[]
  outside: string[]
  protected: string[]
  /**
   * changed paths that are symbolic links or submodules at the head, or git's own
   * `.gitattributes` / `.gitmodules` files: never allowed, in scope or not
   */
  links: string[]
  /**
   * the protected paths no protected glob names: what a runtime loads in place of a protected
   * file (a package, module, cache or node_modules/ package of its name), said as such
   */
  standIns: string[]
  ok: boolean
}

/**
 * Which changed paths a pull request (or an attempt) may not touch: outside the editable
 * scope, or protected; and `links`, the changed paths that are symbolic links or submodules
 * at the head (Workspace.linkedPaths): a link inside the editable scope can point an
 * evaluator that reads it at anything, a protected file or held-out data among them.
 */
const fold = (s: string) => s.normalize('NFC').toLowerCase()

/**
 * `.gitattributes` and `.gitmodules` at any depth (in any case: they are found so on a
 * case-insensitive file system): they change how other files are checked out — line endings,
 * `working-tree-encoding`, `ident`, filters — so one in an editable folder could change the
 * bytes of a protected file the evaluator reads from the attempt's checkout.
 */
export function isGitControlFile(p: string): boolean {
  const base = fold(p.slice(p.lastIndexOf('/') + 1))
  return base === '.gitattributes' || base === '.gitmodules'
}

/**
 * Files neither Python nor Node loads by a name without its extension: data, documents,
 * configuration, models, images, archives, and other languages' sources (run by their path).
 */
const DATA_FILE = /\.(?:csv|tsv|txt|md|rst|ya?ml|toml|ini|cfg|conf|xml|html?|css|parquet|arrow|feather|npy|npz|pkl|pickle|pt|pth|ckpt|safetensors|bin|h5|hdf5|png|jpe?g|gif|svg|pdf|zip|gz|bz2|xz|tar|lock|log|sh|bash|zsh|rb|pl|go|rs|c|h|cc|cpp|hpp|java|kt|scala|r|jl|lua|php|sql)$/

/** Which runtime's code a file is, as a bit: Python's (sources, bytecode, extensions, Cython), Node's (TypeScript and JSX as tsx runs them). */
const PY = 1
const JS = 2
/** (Perl's `require Score` loads `Score.pmc` before `Score.pm`: an attack sweep's `lib/Score.pmc` ran beside a protected `lib/Score.pm`) */
const PL = 4
const PY_CODE = /\.(?:py|pyc|pyo|pyd|pyw|pyx|pxd|so)$/
const JS_CODE = /\.(?:[mc]?[jt]s|[jt]sx|node)$/
const codeOf = (f: string) => (PY_CODE.test(f) ? PY : JS_CODE.test(f) ? JS : 0)
/** The runtimes that load a protected file by its stem: Python's code, Node's code and JSON, either for a name neither knows (no extension, `.v2`), none for data. */
const loadedBy = (f: string) => (DATA_FILE.test(f) ? 0 : PY_CODE.test(f) ? PY : JS_CODE.test(f) || /\.json$/.test(f) ? JS : /\.pmc?$/.test(f) ? PL : PY | JS)

/**
 * A protected glob's last segment that may name Python code, or JavaScript: anything but a
 * file of data or of the other runtime (a wildcard may name either; a name with no extension,
 * or one no runtime knows, may be a folder: `src/harness`, `vendor/scorer-1.2.0`, `.harness`
 * also stand for everything below them). Node's require loads JSON too.
 */
const mayBePython = (name: string) => !DATA_FILE.test(name) && !/\.(?:json|jsonl|[mc]?[jt]s|[jt]sx|node)$/.test(name)
const mayBeNode = (name: string) => !DATA_FILE.test(name) && !/\.(?:py|pyc|pyo|pyd|pyw|pyx|pxd|so)$/.test(name)

/**
 * What is known of the protected files, all folded: the folders above them, each with the
 * runtimes whose code is below it, and the stems `D/S` of the files `D/S.ext`, each with the
 * runtimes that load it by that name (protectedStem, loadedBy). From the globs (globPresent:
 * the folders they name plainly, the files they name by a plain name) and, when the trees are
 * read, from the files there are (presentOf).
 */
export interface Present {
  folders: ReadonlyMap<string, number>
  stems: ReadonlyMap<string, number>
}

const addKind = (m: Map<string, number>, k: string, kind: number) => kind && m.set(k, (m.get(k) ?? 0) | kind)

/** The folders above a path, outermost first (`a`, `a/b` of `a/b/c.py`). */
function foldersAbove(f: string): string[] {
  const out: string[] = []
  for (let i = f.indexOf('/'); i > 0; i = f.indexOf('/', i + 1)) out.push(f.slice(0, i))
  return out
}

/** Present of a commit's files (or two commits' together): nothing is read, names only. */
export function presentOf(paths: readonly string[], prot: readonly string[]): Present {
  const folded = prot.map(fold)
  const folders = new Map<string, number>()
  const stems = new Map<string, number>()
  for (const p of paths) {
    if (!(matchesAny(p, prot) || matchesAny(fold(p), folded))) continue
    const f = fold(p)
    const code = codeOf(f)
    for (const a of foldersAbove(f)) addKind(folders, a, code)
    addKind(stems, protectedStem(f), loadedBy(f))
  }
  return {folders, stems}
}

/**
 * Present of the globs alone: each folder a glob names by a plain path (`lib/` of
 * `lib/scorer.py` or of `lib/**`), holding code of the runtimes its last name may name, and
 * the stem of each glob whose last name is plain (a file; and, as a glob also stands for what
 * is below it, a folder).
 */
function globPresent(prot: readonly string[]): Present {
  const key = prot.join('\n')
  let r = GLOB_PRESENT.get(key)
  if (r) return r
  const folders = new Map<string, number>()
  const stems = new Map<string, number>()
  for (const g of prot.map(fold)) {
    const parts = g.split('/')
    const name = parts.at(-1)!
    const code = (mayBePython(name) ? PY : 0) | (mayBeNode(name) ? JS : 0)
    const plain = (seg: string) => seg !== '' && !/[*?[]/.test(seg)
    for (let i = 0; i < parts.length && plain(parts[i]!); i++) addKind(folders, parts.slice(0, i + 1).join('/'), code)
    if (parts.every(plain)) addKind(stems, protectedStem(g), loadedBy(g))
  }
  if (GLOB_PRESENT.size >= 256) GLOB_PRESENT.clear()
  GLOB_PRESENT.set(key, (r = {folders, stems}))
  return r
}
const GLOB_PRESENT = new Map<string, Present>()

/**
 * The stem of a protected file, as a runtime names it: up to the last dot (`solver.test` of
 * `solver.test.js`: Node's `require('./solver.test')`), but up to the first for what Python
 * names by the part before it (an extension module `score.cpython-311-x86_64-linux-gnu.so`, a
 * cache `__pycache__/score.cpython-311.pyc`: module `score`, its `__pycache__/` left out).
 */
function protectedStem(f: string): string {
  const cut = f.lastIndexOf('/')
  let dir = f.slice(0, cut + 1)
  const base = f.slice(cut + 1)
  const cache = dir === '__pycache__/' || dir.endsWith('/__pycache__/')
  if (cache) dir = dir.slice(0, -'__pycache__/'.length)
  const dot = cache || /\.(?:so|pyd)$/.test(base) ? base.indexOf('.') : base.lastIndexOf('.')
  return dot > 0 ? dir + base.slice(0, dot) : dir + base
}

/**
 * Whether a changed path is what a runtime reads before the files of a folder that holds
 * protected code: Python's `A/__init__.*` (and its cache: run before `A/m.py` is imported),
 * Node's `A/package.json` (its "main", "type", "imports" and "exports" decide what
 * `require('./A')` and the files of A load) and a package in `A/node_modules/` (found before
 * the root's): above a folder a protected glob that may name such a file reaches, at any depth
 * (reachesBelow), or, with the trees (`present`), one that holds protected code of that runtime. Attack sweeps' `lib/__init__.py` beside a protected
 * `**\/scorer.py`, `pkg/a/__init__.py` above `pkg/*\/eval/scorer.py`, `src/__init__.py` above a
 * protected folder `src/harness`, a `lib/package.json` naming another "main" and a
 * `web/src/node_modules/ms/` beside a protected `score.tsx` each ran the attempt's code in the
 * evaluator.
 */
function standsBefore(p: string, prot: readonly string[], present?: Present): boolean {
  const f = fold(p)
  const cut = f.lastIndexOf('/')
  const dir = cut < 0 ? '' : f.slice(0, cut)
  const base = f.slice(cut + 1)
  const up = (d: string) => (d.includes('/') ? d.slice(0, d.lastIndexOf('/')) : '')
  const cache = dir === '__pycache__' || dir.endsWith('/__pycache__')
  const folders: {folder: string; code: number; may: (name: string) => boolean}[] = []
  if (base.startsWith('__init__.')) folders.push({folder: cache ? up(dir) : dir, code: PY, may: mayBePython})
  // (and ts-node's and tsx's tsconfig.json, read from the script's folder up: its "paths" and "ts-node" "require" ran an attack sweep's file)
  if (base === 'package.json' || base === 'tsconfig.json' || base === 'jsconfig.json') folders.push({folder: dir, code: JS, may: mayBeNode})
  // a package in node_modules/ of a folder: Node looks there, from a file's folder up, before the root's
  const nm = `/${f}`.indexOf('/node_modules/')
  if (nm >= 0) folders.push({folder: f.slice(0, Math.max(0, nm - 1)), code: JS, may: mayBeNode})
  // (the root's package.json and node_modules/ are lint's: it refuses them editable beside a JavaScript evaluator)
  // by the globs, and by the protected code the trees hold: the trees add, never take away (code
  // sealed with the private data, or built while the evaluator runs, is in neither)
  return folders.some(({folder, code, may}) => folder !== '' && (((present?.folders.get(folder) ?? 0) & code) !== 0 || prot.some(g => may(fold(g.slice(g.lastIndexOf('/') + 1))) && reachesBelow(fold(g), folder))))
}

/** A file a runtime may load as a module: Python's, and Node's (`require('./A')` tries `A.js`, `A.json`, `A.node` before `A/index.js`). */
const MODULE_FILE = /\.(?:py|pyc|pyo|pyd|pyw|so|[mc]?[jt]s|[jt]sx|json|node)$/

/**
 * Whether a changed path is a module `D/A.ext` (or its cache `D/__pycache__/A.*`) beside a
 * folder `D/A/` that holds protected code of its runtime: Python imports a module file before
 * a namespace folder of its name (and the module may make itself a package whose `__path__` is
 * that folder), Node's `require('./A')` loads `A.js` or `A.json` before `A/index.js`. An attack
 * sweep's `pkg/a.py` beside `pkg/a/scorer.py` of `pkg/*\/scorer.py` ran in the evaluator before
 * it. (A data file beside a folder of protected data is no module: `data/train.json` beside
 * `data/train/labels.csv` is the change's.)
 */
function moduleBeside(p: string, present: Present): boolean {
  const folder = moduleFolder(p)
  return folder !== undefined && ((present.folders.get(folder) ?? 0) & (PY_CODE.test(fold(p)) ? PY : JS)) !== 0
}

/**
 * Whether a changed path is what a runtime takes for a protected file `D/S.ext` (`present.stems`),
 * by the runtimes that load it: Python's package `D/S/__init__.*` (imported before the module
 * `S.py`), a module `D/S.py`, `D/S.so`, `D/S.cpython-311-x86_64-linux-gnu.so`, and the cache
 * `D/__pycache__/S.cpython-311.pyc` (an unchecked-hash one runs without its source being read,
 * for a module loaded by its path too: `score.v2.py`); Node's `D/S` (`require('./S')` tries it
 * first), `D/S.js`, `D/S.json`, `D/S/index.js`, `D/S/package.json`. Attack sweeps'
 * `solver/score/__init__.py` beside `solver/score.py`, `harness/scorer/__init__.py` beside a
 * `harness/scorer.py` of `harness/*.py`, `data/target.js` beside a `data/target.json`, and the
 * cache of a `harness/score.v2.py`, each ran in the evaluator. What no runtime loads in place of
 * code is the change's: `eval.md`, `eval/cases.csv` beside `eval.py`, `score.json` beside a
 * Python `score.py`, `src/solver.js` beside `src/solver.test.js`.
 */
function stemBeside(p: string, present: Present): boolean {
  const f = fold(p)
  // in a folder named like a stem: the package's __init__ (and its cache), the folder's index or package.json
  for (const a of foldersAbove(f)) {
    const kind = present.stems.get(a) ?? 0
    const rest = f.slice(a.length + 1)
    if ((kind & PY && /^(?:__pycache__\/)?__init__\.[^/]*$/.test(rest)) || (kind & JS && /^(?:index\.[^/]*|package\.json)$/.test(rest))) return true
  }
  // the stem itself, a file without an extension
  if ((present.stems.get(f) ?? 0) & JS) return true
  const cut = f.lastIndexOf('/')
  const dir = f.slice(0, cut + 1)
  const base = f.slice(cut + 1)
  if (dir === '__pycache__/' || dir.endsWith('/__pycache__/')) {
    // (`<module>.<tag>[.opt-N].pyc`)
    const module = base.replace(/\.[^.]+(?:\.opt-\d+)?\.pyc$/, '')
    return module !== base && ((present.stems.get(dir.slice(0, -'__pycache__/'.length) + module) ?? 0) & PY) !== 0
  }
  const kind = PY_CODE.test(f) ? PY : JS_CODE.test(f) || /\.json$/.test(f) ? JS : /\.pmc?$/.test(f) ? PL : 0
  // (a runtime names a file by the part before its first dot, `score` of `score.cpython-311.so`, or before its last, `solver.test` of `solver.test.json`)
  const first = base.indexOf('.')
  const last = base.lastIndexOf('.')
  return kind !== 0 && ((first > 0 && ((present.stems.get(dir + base.slice(0, first)) ?? 0) & kind) !== 0) || (last > 0 && ((present.stems.get(dir + base.slice(0, last)) ?? 0) & kind) !== 0))
}

/** The folder `D/A` (folded) of a module file `D/A.ext` or `D/__pycache__/A.ext`; undefined for a file no runtime loads as a module. */
function moduleFolder(p: string): string | undefined {
  const f = fold(p)
  if (!MODULE_FILE.test(f)) return undefined
  const cut = f.lastIndexOf('/')
  let dir = cut < 0 ? '' : f.slice(0, cut)
  if (dir === '__pycache__' || dir.endsWith('/__pycache__')) dir = dir.slice(0, -'__pycache__'.length).replace(/\/$/, '')
  const base = f.slice(cut + 1)
  const stem = base.slice(0, base.indexOf('.'))
  return !stem ? undefined : dir ? `${dir}/${stem}` : stem
}

/**
 * Whether checkScope's answer for `changed` may depend on which protected files the trees hold
 * (a package file or a module under a folder a protected glob may reach, or a path beside
 * files a glob with a wildcard in its last segment may match): only then are they worth listing.
 */
export function asksPresence(changed: readonly string[], prot: readonly string[]): boolean {
  const wild = prot.map(fold).filter(g => /[*?]/.test(g.slice(g.lastIndexOf('/') + 1)))
  // (a glob that may match a file directly in a folder, or deeper)
  const reaches = (g: string, folder: string) => (folder === '' ? !g.includes('/') || g.startsWith('**') : reachesBelow(g, folder))
  return changed.some(p => {
    const folder = moduleFolder(p)
    const f = fold(p)
    if (/(?:^|\/)(?:__init__\.[^/]*|package\.json|tsconfig\.json|jsconfig\.json)$/.test(f) || `/${f}`.includes('/node_modules/')) return true
    if (folder !== undefined && prot.some(g => reachesBelow(fold(g), folder))) return true
    const folders = ['', ...foldersAbove(f)]
    return wild.some(g => folders.some(a => reaches(g, a)))
  })
}

/**
 * Whether glob `g` matches a path below `folder` (at any depth), as matchesAny reads globs (a
 * glob also stands for everything below it): its segments against the folder's, `**` taking
 * any number of them.
 */
function reachesBelow(g: string, folder: string): boolean {
  const gs = g.split('/')
  const fs = folder.split('/')
  // (each pair of positions once: a pull request chooses how deep its paths go)
  const seen = new Map<number, boolean>()
  const go = (i: number, j: number): boolean => {
    // the folder is consumed: the glob still names something below it
    if (j === fs.length) return i < gs.length
    // the glob named a folder above: everything below it
    if (i === gs.length) return true
    const at = i * (fs.length + 1) + j
    let r = seen.get(at)
    if (r === undefined) {
      r = gs[i] === '**' ? i === gs.length - 1 || go(i + 1, j) || go(i, j + 1) : globToRegExp(gs[i]!).test(fs[j]!) && go(i + 1, j + 1)
      seen.set(at, r)
    }
    return r
  }
  return go(0, 0)
}

/**
 * With `present` (presentOf the base's and the head's files), more is protected: a module
 * beside a folder that holds protected code of its runtime, a package file above one, and what
 * a runtime takes for a protected file of any glob (a glob with wildcard folders, `pkg/*\/scorer.py`,
 * or a wildcard name, `harness/*.py`, says nothing of which folders and stems there are). The
 * trees add, never take away: protected code may be sealed with the private data, or built
 * while the evaluator runs, and be in neither.
 */
export function checkScope(changed: readonly string[], contract: {editable_scope: readonly string[]; protected_scope?: readonly string[]}, links: readonly string[] = [], present?: Present): ScopeReport {
  const protect = contract.protected_scope ?? []
  const outside = changed.filter(p => !matchesAny(p, contract.editable_scope))
  // protected in any case and Unicode form: on a case-insensitive or normalizing file system
  // (macOS, Windows) `Eval.py` and `eval.py` check out as one file, so a variant is the file
  const named = protect.map(fold)
  const direct = (p: string) => matchesAny(p, protect) || matchesAny(fold(p), named)
  // and what a runtime loads in its place (`solver/score/__init__.py` beside a protected
  // `solver/score.py` in an editable `solver/**` ran instead of it), by the globs and the trees
  const known = [globPresent(protect), ...(present ? [present] : [])]
  const standIns = changed.filter(p => !direct(p) && (standsBefore(p, protect, present) || known.some(k => moduleBeside(p, k) || stemBeside(p, k))))
  const stand = new Set(standIns)
  const prot = changed.filter(p => stand.has(p) || direct(p))
  const special = [...new Set([...links, ...changed.filter(isGitControlFile)])]
  return {changed: [...changed], outside, protected: prot, links: special, standIns, ok: !outside.length && !prot.length && !special.length}
}

/**
 * A path as it is shown (terminal, pull-request comment, JUnit): as it is when it is plain
 * text, else quoted with JSON's escapes, as git quotes one (core.quotePath). A path is the
 * pull request's author's to choose: a newline, an escape sequence or a bidirectional
 * override in it must not draw a heading in the comment or drive the terminal.
 */
export function shownPath(p: string): string {
  // (JSON.stringify escapes C0 and the quote and backslash; the rest of the unsafe set, and the line separators, here)
  return NOT_PLAIN.test(p) ? JSON.stringify(p).replace(UNSAFE, uEscape) : p
}

const NOT_PLAIN = new RegExp(`[\\t\\n\\u2028\\u2029"\\\\${UNSAFE_TEXT}]`)
const UNSAFE = new RegExp(`[\\u2028\\u2029${UNSAFE_TEXT}]`, 'g')

/** Text as one Markdown code span, whatever backticks it holds (CommonMark: a longer fence, spaces inside). */
export function codeSpan(text: string): string {
  const run = Math.max(0, ...(text.match(/`+/g) ?? []).map(r => r.length))
  const fence = '`'.repeat(run + 1)
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : ''
  return `${fence}${pad}${text}${pad}${fence}`
}

/** Skills a change set touches (skills/<name>/…). */
export function skillsTouched(changed: readonly string[]): string[] {
  return [...new Set(changed.flatMap(p => {
    const m = /^skills\/([^/]+)\//.exec(p)
    return m ? [m[1]!] : []
  }))].sort()
}
