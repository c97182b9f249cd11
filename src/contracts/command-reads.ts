import path from 'node:path'
import {splitCommandLine} from '../agents/command/argv.js'
import {ARG_RUNNERS, NODE_WORDS, PROGRAM_FILE, PY_WRAPPERS, PYTHON, PYTHON_WORDS, SCRIPT, SCRIPT_FIRST, firstArgument, isRelativePath, pythonMode} from './command-words.js'
import {NO_FOLDER, SCOPED, scopedProbes, testRoots} from './test-roots.js'

/**
 * What an evaluator command runs, read from its words (docs/contracts.md, "What the command
 * runs must be protected"): its script files, what their runtimes import by name from beside
 * them, what a runner, a Python module, Node or a version manager reads code from, and what
 * lint cannot read at all (an environment it sets, a shell expansion: command-unreadable.ts).
 * The rules (rules.ts) refuse a contract whose editable scope covers any of them. An attack sweep found each.
 */


/**
 * The files of the repository an evaluator command runs: its program when it is a path
 * (`./eval.sh`, `tools/run`), and every argument naming a script by its extension
 * (`python3 harness/eval.py`, `node --import ./hook.mjs eval.mjs`, `--script=run.sh`). Data
 * it is given (`params.json`) is not among them: an evaluator reads editable files.
 */
export function commandFiles(command: string): string[] {
  const words = splitCommandLine(command) ?? []
  const out = words.flatMap((w, i) => {
    // (an option's value too: `--script=run.sh`)
    const v = !w.startsWith('-') ? w : w.includes('=') ? w.slice(w.indexOf('=') + 1) : ''
    if (!v || (i > 0 && !SCRIPT.test(v)) || (i === 0 && !v.includes('/'))) return []
    const rel = path.posix.normalize(v)
    return path.posix.isAbsolute(rel) || rel.startsWith('../') ? [] : [rel]
  })
  return [...new Set(out)]
}

/**
 * Files an attempt could add that an evaluator script's runtime imports by name before its
 * own: a module of Python's standard library beside it (the script's folder is first on
 * sys.path), or a package in node_modules/ of its folder or any folder above it (Node looks
 * there from the script's folder up). Probe paths, what they are, and the folder to protect.
 */
export function shadowsOf(script: string): {probe: string; what: string; folder: string}[] {
  const dir = path.posix.dirname(script)
  const at = (d: string, p: string) => (d === '.' ? p : `${d}/${p}`)
  // (a module file or a package folder: `json.py`, `json/__init__.py`)
  if (/\.pyc?$/i.test(script)) return ['json.py', 'json/__init__.py'].map(m => ({probe: at(dir, m), what: 'a Python module named like one of the standard library', folder: at(dir, m.endsWith('.py') && !m.includes('/') ? '*.py' : '*/__init__.py')}))
  if (!/\.(?:m|c)?[jt]sx?$/i.test(script)) return []
  const dirs = dir === '.' ? ['.'] : dir.split('/').map((_, i, parts) => parts.slice(0, i + 1).join('/')).reverse().concat('.')
  return dirs.flatMap(d => [
    {probe: at(d, 'node_modules/probe/index.js'), what: 'a node_modules/ package', folder: at(d, 'node_modules/**')},
    {probe: at(d, 'package.json'), what: 'a package.json (its "type", "imports" and "exports" decide how the script and what it imports load)', folder: at(d, 'package.json')},
    // (ts-node and tsx read the tsconfig.json nearest the script: its "ts-node" "require" ran an attack sweep's file)
    ...(/\.[mc]?tsx?$/i.test(script) ? [{probe: at(d, 'tsconfig.json'), what: 'a tsconfig.json (ts-node and tsx read the one nearest the script: its "paths", "ts-node" "require")', folder: at(d, 'tsconfig.json')}] : []),
  ])
}

/**
 * Programs that read what they run from a file of the folder they run in (the checkout's
 * root): a runner's script or task file, a build or test tool's configuration. An attack
 * sweep's `npm run -s eval` with `*.json` editable let an attempt rewrite the `eval` script in
 * package.json and write its own score (dev and held-out, promoted, the gate passed).
 */
const RUNNERS: Record<string, readonly string[]> = (() => {
  const npm = ['package.json', '.npmrc']
  const make = ['Makefile', 'makefile', 'GNUmakefile']
  // (pytest collects conftest.py from every folder it walks: `**/` is any folder the editable scope reaches)
  // and the test files it and unittest collect (an attack sweep's `configs/test_zz.py` ran under `python3 -m unittest`)
  // (and the doctests of `test*.txt` it collects by default: an attack sweep's `data/test_zz.txt`)
  const pytest = ['pytest.ini', '.pytest.ini', 'pyproject.toml', 'setup.cfg', 'tox.ini', 'conftest.py', '**/conftest.py', '**/test_probe.py', '**/probe_test.py', '**/test_probe.txt']
  // JavaScript test runners: their configuration, and the test files they find
  const jsTests = ['package.json', '**/probe.test.js', '**/probe.spec.js', '**/probe.test.ts', '**/probe.spec.ts', '**/probe.test.mjs', '**/__tests__/probe.js', '**/test/probe.js', '**/test/probe.mjs']
  const ts = ['tsconfig.json', 'package.json']
  return {
    npm, npx: [...npm, 'node_modules/probe/index.js'], yarn: [...npm, '.yarnrc', '.yarnrc.yml'], pnpm: [...npm, '.pnpmfile.cjs', 'pnpm-workspace.yaml'], bun: ['package.json', 'bunfig.toml'], bunx: ['package.json', 'bunfig.toml'],
    make, gmake: make, just: ['justfile', 'Justfile', '.justfile'], task: ['Taskfile.yml', 'Taskfile.yaml', 'taskfile.yml', 'taskfile.yaml'],
    uv: ['pyproject.toml', 'uv.toml'], uvx: ['pyproject.toml', 'uv.toml'], poetry: ['pyproject.toml', 'poetry.toml'], pipenv: ['Pipfile'], hatch: ['pyproject.toml', 'hatch.toml'], pdm: ['pyproject.toml', '.pdm-python', 'pdm.toml'], deno: ['deno.json', 'deno.jsonc', 'import_map.json', 'package.json'], rye: ['pyproject.toml'],
    tox: ['tox.ini', 'pyproject.toml', 'setup.cfg'], nox: ['noxfile.py'], pytest, 'py.test': pytest, unittest: ['**/test_probe.py'],
    rake: ['Rakefile', 'rakefile'], bundle: ['Gemfile'], cargo: ['Cargo.toml', 'build.rs', '.cargo/config.toml', '.cargo/config'], go: ['go.mod'],
    tsx: ts, 'ts-node': ts, 'ts-node-esm': ts,
    jest: [...jsTests, 'jest.config.js', 'jest.config.mjs', 'jest.config.cjs', 'jest.config.ts', 'jest.config.json'], mocha: [...jsTests, '.mocharc.js', '.mocharc.cjs', '.mocharc.json', '.mocharc.yml', '.mocharc.yaml'], vitest: [...jsTests, 'vitest.config.ts', 'vitest.config.js', 'vitest.config.mjs', 'vite.config.ts', 'vite.config.js', 'vitest.workspace.ts'],
    gradle: ['build.gradle', 'build.gradle.kts', 'settings.gradle', 'settings.gradle.kts'], mvn: ['pom.xml'], dotnet: ['global.json', 'Directory.Build.props'],
  }
})()

/**
 * Files of the command's folder a version manager's shim reads to choose the interpreter it
 * runs (pyenv, asdf, nvm, rbenv…): an attack sweep's `.python-version` in an editable `.*` chose
 * another Python for the evaluator, and the recorded interpreter was not the one that ran.
 */
const VERSION_FILES: readonly string[] = ['.python-version', '.tool-versions', '.nvmrc', '.node-version', '.ruby-version', '.java-version', '.go-version', '.mise.toml', 'mise.toml']

/**
 * What an evaluator command reads code from besides its script files (commandFiles), by name:
 * for a runner among its words (also inside a shell string: `bash -c 'make eval'`), the files
 * it reads its script or configuration from; for a Python interpreter given a module (`-m
 * harness.eval`), the module's files and their packages', and a module of the standard
 * library at the root (with `-m` or `-c`, the folder it runs in is first on sys.path: an attack
 * sweep's root `json.py` replaced the standard library's under `python3 -m harness.eval`).
 */
export function commandReads(command: string): Reads[] {
  const w = readWords(command)
  const out: Reads[] = []
  for (const step of READERS) step(w, out)
  out.push({why: "a version manager's shim reads them to choose the interpreter it runs", files: [...VERSION_FILES]})
  // (pipenv, bun, dotenv tools and others read a `.env` of the folder they run in into the environment)
  out.push({why: 'the runners that load an environment file read it', files: ['.env', '.envrc', '.flaskenv']})
  return out
}

/** What a command reads code from, for one reason: why, and the files (`**\/name`: in any folder). */
export interface Reads {
  why: string
  files: string[]
}

/** A command's words as lint reads them. */
interface Words {
  /** its words split at shell operators and spaces too (`bash -c 'make eval'`) */
  tokens: string[]
  /** each token's program names: its last segment (`/usr/bin/make`), and its first (`ts-node/esm`) */
  names: [string, string][]
  /** the `-m MODULE` or `-c CODE` given to the Python interpreter at token i (pythonMode, read once a token) */
  python: (i: number) => {flag: 'm' | 'c'; value: string} | undefined
}

function readWords(command: string): Words {
  const words = splitCommandLine(command) ?? []
  const tokens = words.flatMap(w => w.split(/[\s;&|()`]+/)).filter(Boolean)
  const names = tokens.map((tok): [string, string] => [tok.slice(tok.lastIndexOf('/') + 1), tok.split('/')[0]!])
  const modes = new Map<number, ReturnType<typeof pythonMode>>()
  const python = (i: number) => {
    if (!PYTHON.test(names[i]![0])) return undefined
    if (!modes.has(i)) modes.set(i, pythonMode(tokens, i + 1))
    return modes.get(i)
  }
  return {tokens, names, python}
}

/** `--x=v` -> `v`, `-Cweb` -> `web`, a word -> itself: the path a token may name */
function valueOf(tok: string): string {
  return tok.startsWith('--') ? (tok.includes('=') ? tok.slice(tok.indexOf('=') + 1) : '') : tok.startsWith('-') ? tok.slice(tok[2] === '=' ? 3 : 2) : tok
}

/** The files of a Python module run by name (`harness.eval`): the module, its `__main__`, and its packages' `__init__.py`. */
function moduleRun(out: Reads[], m: string, why: (m: string) => string): void {
  if (!/^[A-Za-z_][\w.]*$/.test(m)) return
  const parts = m.split('.')
  const base = parts.join('/')
  out.push({why: why(m), files: [`${base}.py`, `${base}/__main__.py`, `${base}/__init__.py`, ...parts.slice(0, -1).map((_, k) => `${parts.slice(0, k + 1).join('/')}/__init__.py`)]})
}

/** A runner among the words (`npm`, `make`, `pytest`…): the files it reads its scripts or configuration from, in the folder it runs in or one the command names. */
function runnerReads({tokens, names}: Words, out: Reads[]): void {
  // the folders and files the command names (`--prefix web`, `-C web`, `-Cweb`, `cd web &&`, `-f conf/eval.mk`): a runner may read its files there
  // (`-c=src/pytest.ini` too: a sweep's editable config went unread)
  // (not the values of a test runner's options that name no folder it reads: `--cov=src`, `-k score`)
  const paths = [...new Set(tokens.filter((tok, i) => !NO_FOLDER.has(tok.replace(/=.*$/s, '')) && !NO_FOLDER.has(tokens[i - 1] ?? '')).map(valueOf).filter(isRelativePath).map(p => path.posix.normalize(p).replace(/\/$/, '')))]
  // (and a runner run as a module under another spelling: `python3 -mpytest`, `-m pytest.__main__`, `coverage run -mpytest`)
  const modules = tokens.flatMap((tok, i) => {
    const m = /^-[A-Za-z]*?m(.+)$/.exec(tok) ?? (/^-[A-Za-z]*m$|^--module$/.test(tok) ? [tok, tokens[i + 1] ?? ''] : null)
    return m ? [m[1]!.replace(/^=/, '').split('.')[0]!] : []
  })
  const runners = new Set([...names.flat(), ...modules].filter(n => Object.hasOwn(RUNNERS, n)))
  for (const name of runners) {
    // (a discovering runner given the folders to collect from finds test files there only: `python3 -m pytest tests`)
    // (only pytest's and unittest's words are paths: jest's and vitest's are patterns matched
    // against every file's path, so `npx jest tests` also ran an attack sweep's src/latests/x.test.js)
    const roots = SCOPED.has(name) ? testRoots(tokens, tokens.findIndex(tok => tok.slice(tok.lastIndexOf('/') + 1) === name || tok.split('/')[0] === name) + 1, name) : undefined
    const files = roots ? scopedProbes(RUNNERS[name]!, roots) : RUNNERS[name]!
    // (a path an option names is read as the runner's own file: `make -f conf/eval.rules`, `--tsconfig conf/ts.json`)
    const named = tokens.flatMap((tok, i) => (tok.startsWith('-') && !tok.includes('=') && tok.length === 2 ? [tokens[i + 1] ?? ''] : tok.startsWith('-') ? [valueOf(tok)] : [])).filter(isRelativePath)
    out.push({why: `${name} reads what it runs from its files, in the folder it runs in or one the command names`, files: [...files, ...named, ...paths.flatMap(p => (RUNNER_FILE.test(p) ? [p] : files.filter(f => !f.startsWith('**/')).map(f => `${p}/${f}`)))]})
  }
}

/** What a Python interpreter or a wrapper runs as a module (`-m harness.eval`, `coverage run -m x`), and the standard library that `-m` or `-c` lets the root shadow. */
function pythonModuleReads({tokens, names, python}: Words, out: Reads[]): void {
  // the modules a wrapper given `-m` runs in turn (`coverage run -m harness.eval`, `python3 -m cProfile -m harness.eval`)
  const wrapped = (from: number, by: string) => {
    for (let j = from; j < tokens.length; j++) {
      // (`-m x`, `-mx`, `--module x`, `--module=x`)
      const m = /^(?:-m|--module)(?:=?(.+))?$/.exec(tokens[j]!)
      if (m) moduleRun(out, m[1] ?? tokens[j + 1] ?? '', v => `${by} -m ${v} runs them`)
    }
  }
  names.forEach(([name], i) => {
    if (PY_WRAPPERS.test(name!)) wrapped(i + 1, name!)
    const o = python(i)
    if (!o) return
    out.push({why: `python -${o.flag} puts the folder it runs in first on sys.path, and imports a module named like one of the standard library there in its place`, files: ['json.py', 'json/__init__.py']})
    // (a wrapper, `python3 -m coverage run -m harness.eval`, is a name of its own above)
    if (o.flag === 'm') moduleRun(out, o.value, v => `python -m ${v} runs them`)
  })
}

/** A plugin pytest imports by name (`-p tools.plugin`). */
function pytestPluginReads({tokens, names}: Words, out: Reads[]): void {
  // a plugin pytest imports by name (`-p tools.plugin`; `-p no:…` turns one off)
  if (names.some(([n]) => n === 'pytest' || n === 'py.test')) tokens.forEach((tok, j) => {
    const v = tok === '-p' ? tokens[j + 1] : tok.startsWith('-p') && tok.length > 2 && !tok.startsWith('-p=') ? tok.slice(2) : undefined
    if (v && !v.startsWith('no:')) moduleRun(out, v, m => `pytest -p ${m} imports them`)
  })
}

/** Modules and files a standard-library runner is given (`python3 -m unittest tools.eval`, `-m doctest notes.md`). */
function argRunnerReads({tokens, names, python}: Words, out: Reads[]): void {
  // modules named as arguments of a standard-library runner (`python3 -m runpy tools.eval`,
  // `python3 -m unittest tools.eval`) and the files doctest runs (`python3 -m doctest tools/eval.md`)
  names.forEach((_, i) => {
    const o = python(i)
    if (o?.flag !== 'm' || !ARG_RUNNERS.has(o.value)) return
    const args = tokens.slice(tokens.indexOf(o.value, i + 1) + 1).filter(tok => !tok.startsWith('-') && tok !== 'discover')
    if (o.value === 'doctest') out.push({why: 'python -m doctest runs them', files: args.filter(isRelativePath).map(v => path.posix.normalize(v))})
    else for (const m of args) moduleRun(out, m, v => `python -m ${o.value} ${v} runs them`)
  })
}

/** A folder or an extensionless file given to Python or Node as the script. */
function folderScriptReads({tokens, names, python}: Words, out: Reads[]): void {
  // a folder (or a file without an extension) given as the script: `python3 tools` runs
  // tools/__main__.py, `node tools` tools/index.js or what tools/package.json names
  names.forEach(([name], i) => {
    const py = PYTHON.test(name!)
    if (!py && !/^(?:node|nodejs)$/.test(name!)) return
    if (py && python(i)) return
    const script = firstArgument(tokens, i + 1, py ? PYTHON_WORDS : NODE_WORDS)
    if (!script || !isRelativePath(script) || SCRIPT.test(script)) return
    const v = path.posix.normalize(script)
    out.push({why: `${name} ${script} runs them`, files: py ? [v, `${v}/__main__.py`] : [v, `${v}.js`, `${v}.json`, `${v}/index.js`, `${v}/package.json`]})
  })
}

/** The program a tool reads from a file an option names (`sed -f`, `jq --from-file`). */
function programFileReads({tokens, names}: Words, out: Reads[]): void {
  // the program a tool reads from a file an option names (`sed -f fix.sed`, `awk -fprog`, `jq --from-file q`, `xargs -a cmds`)
  names.forEach(([name], i) => {
    const opt = PROGRAM_FILE[name!]
    if (!opt) return
    for (let j = i + 1; j < tokens.length; j++) {
      const m = opt.exec(tokens[j]!)
      const v = m ? m[1] || tokens[j + 1] : undefined
      const flag = tokens[j]!.startsWith('--') ? tokens[j]!.replace(/=.*$/s, '') : tokens[j]!.slice(0, 2)
      if (v && isRelativePath(v)) out.push({why: `${name} ${flag} reads the program it runs from it`, files: [path.posix.normalize(v)]})
    }
  })
}

/** An interpreter's script without an extension (`bash run`, `ruby tools/eval`). */
function scriptFirstReads({tokens, names}: Words, out: Reads[]): void {
  // an interpreter's script without an extension (`perl -x notes`, `bash run`, `ruby tools/eval`): its first argument
  names.forEach(([name], i) => {
    const words = SCRIPT_FIRST.find(([n]) => n.test(name!))?.[1]
    const script = words && firstArgument(tokens, i + 1, words)
    if (script && isRelativePath(script) && !SCRIPT.test(script)) out.push({why: `${name} ${script} runs it`, files: [path.posix.normalize(script)]})
  })
}

/** What pip installs from the checkout: requirements files, and local projects it builds. */
function pipReads({tokens, names, python}: Words, out: Reads[]): void {
  // what pip installs from the checkout: a requirements or constraints file (which may name
  // more), and a local project, whose setup.py runs as it is built (`pip install -e .`)
  const installs = new Set<number>()
  names.forEach(([name], i) => {
    const pip = /^pip\d*(?:\.\d+)?$/.test(name!) || (name === 'uv' && tokens[i + 1] === 'pip') || python(i)?.value === 'pip'
    const from = pip ? tokens.indexOf('install', i + 1) : -1
    // (`python3 -m pip install` and `uv pip install` name pip twice: its words are read once)
    if (from < 0 || installs.has(from)) return
    installs.add(from)
    for (let j = from + 1; j < tokens.length; j++) {
      const tok = tokens[j]!
      const m = /^(?:-r|--requirement|-c|--constraint|-e|--editable)(?:=(.*))?$/.exec(tok) ?? /^-([rce])(.+)$/.exec(tok)
      const v = m ? (m[2] ?? m[1] ?? tokens[++j]) : !tok.startsWith('-') && (tok === '.' || tok.includes('/')) ? tok : undefined
      const at = v === undefined ? '' : path.posix.normalize(v).replace(/\/$/, '')
      if (!at || (at !== '.' && !isRelativePath(at))) continue
      const file = /^-(?:r|c)|^--(?:requirement|constraint)/.test(tok)
      out.push({why: file ? 'pip install reads what to install from it' : 'pip install builds the project there, running its setup.py', files: file ? [at] : ['setup.py', 'pyproject.toml', 'setup.cfg'].map(f => (at === '.' ? f : `${at}/${f}`))})
    }
  })
}

/** A package a runner installs and runs from a folder (`npx file:tools/pkg`). */
function localPackageReads({tokens}: Words, out: Reads[]): void {
  // a package a runner installs and runs from a folder (`npx --yes file:tools/pkg`, `npm exec --package=link:tools`, `pnpm dlx`, `bunx`)
  const local = tokens.flatMap(tok => {
    const m = /^(?:--package=|-p=)?(?:file|link|git\+file|portal):(?:\/\/)?(.+)$/.exec(tok)
    return m && isRelativePath(m[1]!.replace(/^\.\//, '')) ? [path.posix.normalize(m[1]!)] : []
  })
  if (local.length) out.push({why: 'the runner installs and runs the package in them', files: local.flatMap(v => [`${v}/package.json`, `${v}/index.js`, `${v}/setup.py`, `${v}/pyproject.toml`])})
}

/** What Node runs besides the script: test files (`--test`), a package.json script (`--run`), preloads (`-r`, `--import`). */
function nodeReads({tokens, names}: Words, out: Reads[]): void {
  // `node --test` runs every test file it finds (an attack sweep's `configs/zz.test.js`)
  const nodeTest = tokens.findIndex((tok, i) => tok === '--test' && names.slice(0, i).some(([n]) => /^(?:node|nodejs)$/.test(n!)))
  if (nodeTest >= 0) {
    const probes = ['**/probe.test.js', '**/probe.test.mjs', '**/probe.test.cjs', '**/probe-test.js', '**/probe_test.js', '**/test-probe.js', '**/test.js', '**/test/probe.js', '**/test/probe.mjs']
    const roots = testRoots(tokens, nodeTest + 1)
    out.push({why: 'node --test runs the test files it finds', files: roots ? scopedProbes(probes, roots) : probes})
  }
  // `node --run eval` runs a script of package.json, as npm run does
  if (names.some(([n], i) => /^(?:node|nodejs)$/.test(n!) && tokens.slice(i + 1).some(tok => tok === '--run' || tok.startsWith('--run=')))) out.push({why: 'node --run reads the script it runs from package.json', files: ['package.json']})
  // what node loads before the script (`-r ./hook`, `--import ./setup`): a path without an extension too
  const loaded = tokens.flatMap((tok, i) => {
    const flag = /^(?:-r|--require|--import|--loader|--experimental-loader|--env-file|--env-file-if-exists|--experimental-config-file|--test-reporter)(?:=(.*))?$/.exec(tok)
    const v = flag ? (flag[1] ?? tokens[i + 1]) : undefined
    // (a module name is a package's, `-r ts-node/register`; an env file is always a path)
    return v && (v.startsWith('./') || v.startsWith('../') || tok.startsWith('--env-file') || tok.startsWith('--experimental-config-file')) && isRelativePath(v) ? [path.posix.normalize(v)] : []
  })
  if (loaded.length) out.push({why: 'node loads them before the script', files: loaded.flatMap(v => [v, `${v}.js`, `${v}.mjs`, `${v}.cjs`, `${v}/index.js`])})
}

/** The folders a command puts first on an interpreter's search path (`perl -Isrc`, `java -cp src`). */
function searchPathReads({tokens}: Words, out: Reads[]): void {
  // the folders a command puts first on an interpreter's search path (`perl -Isrc`, `ruby -I src`,
  // `java -cp src:harness`, `-Mlib=src`): an attack sweep's src/List/Util.pm and src/Score.class ran
  const searched = tokens.flatMap((tok, i) => {
    const m = /^(?:-I|-cp|-classpath|--class-path|-Mlib=)(.*)$/.exec(tok)
    if (!m) return []
    const v = m[1] || (tok === '-I' || tok === '-cp' || tok === '-classpath' || tok === '--class-path' ? (tokens[i + 1] ?? '') : '')
    return v.split(/[:,]/).filter(isRelativePath).map(p => path.posix.normalize(p))
  })
  if (searched.length) out.push({why: 'it puts them first on its interpreter\'s search path', files: searched.map(p => `${p}/probe`)})
}

/** Each kind of thing a command reads code from, in the order lint reports them. */
const READERS: readonly ((w: Words, out: Reads[]) => void)[] = [runnerReads, pythonModuleReads, pytestPluginReads, argRunnerReads, folderScriptReads, programFileReads, scriptFirstReads, pipReads, localPackageReads, nodeReads, searchPathReads]

/** A file named like one a runner reads (a Makefile, a package.json…): the command may name it (`make -f conf/eval.mk`). */
const RUNNER_FILE = /(?:^|\/)(?:[Mm]akefile|GNUmakefile|[Jj]ustfile|\.justfile|[Tt]askfile\.ya?ml|package\.json|pyproject\.toml|Cargo\.toml|noxfile\.py|conftest\.py|tox\.ini|setup\.cfg|pytest\.ini|tsconfig\.json|[^/]*\.mk)$/
