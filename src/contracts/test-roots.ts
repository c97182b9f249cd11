import path from 'node:path'
import {isRelativePath} from './command-words.js'

/**
 * Where discovering test runners collect the files they run (pytest, unittest, node --test):
 * the folders a command tells them, and where a file they read in any folder (`conftest.py`,
 * `test_*.py`) could be added under an editable scope.
 */

/** Options of test runners whose values name no folder a runner reads its files from. */
export const NO_FOLDER = new Set(['--cov', '--cov-report', '-k', '-m', '-W', '--junitxml', '--junit-xml', '--basetemp', '--durations', '--tb', '-n', '--maxfail', '--deselect', '--ignore', '--ignore-glob', '--log-level', '--timeout', '--test-concurrency', '--test-name-pattern', '--test-timeout', '--test-shard'])

/** The runners whose words are the folders or files they collect from. */
export const SCOPED = new Set(['pytest', 'py.test', 'unittest'])

/** Options of test runners that take no value: a word after one is a path to collect from (`pytest -q tests`). */
const FLAG_ONLY = new Set(['-q', '-qq', '-v', '-vv', '-vvv', '-x', '-s', '-l', '--quiet', '--verbose', '--exitfirst', '--no-header', '--test', '--ci', '--runInBand', '-b', '-f', '--failfast', '--buffer', '--strict-markers', '--strict-config', '--lf', '--ff', '--nf', '--sw', '-rA', '-ra', '--pdb', '--showlocals', '--disable-warnings', '--no-cov'])

/** Options of pytest and node --test that take the next word as their value (`-p no:cacheprovider`, `-k score`, `--test-concurrency 1`). */
const VALUE_OPTIONS = new Set(['-p', '-k', '-m', '-W', '-o', '-n', '-c', '-r', '--durations', '--rootdir', '--junitxml', '--junit-xml', '--tb', '--maxfail', '--deselect', '--ignore', '--ignore-glob', '--basetemp', '--log-level', '--confcutdir', '--cov', '--cov-report', '--timeout', '--import-mode', '--test-concurrency', '--test-name-pattern', '--test-reporter', '--test-reporter-destination', '--test-timeout', '--test-shard', '-t', '--top-level-directory', '--pattern'])

/**
 * The folders (or files) a discovering test runner is told to collect from, the words after it
 * (from `from`) that are paths, `unittest discover -s tests` too; undefined when it is told none,
 * or when a word could be an option's value or a path (`-k test_x`): then it collects anywhere.
 */
export function testRoots(tokens: readonly string[], from: number, runner = ''): string[] | undefined {
  if (from <= 0) return undefined
  const roots: string[] = []
  for (let j = from; j < tokens.length; j++) {
    const w = tokens[j]!
    const start = /^(?:-s|--start-directory)(?:=(.*))?$/.exec(w)
    if (start) {
      const v = start[1] ?? tokens[++j] ?? ''
      if (!isRelativePath(v)) return undefined
      roots.push(path.posix.normalize(v))
      continue
    }
    // (unittest's -c is a flag, --catch)
    if (VALUE_OPTIONS.has(w) && !(runner === 'unittest' && w === '-c')) {
      j++
      continue
    }
    // (`--pyargs` reads the words as packages found on sys.path: anywhere)
    if (w === '--pyargs') return undefined
    if (w.startsWith('-')) continue
    if (w === 'discover' || w === 'run') continue
    const prev = tokens[j - 1]!
    // (an option that may take this word as its value: `-k test_x`, `--foo x`; not `-rfE`, whose value is glued)
    const takes = prev.startsWith('--') ? !prev.includes('=') : prev.startsWith('-') && prev.length === 2 && !(runner === 'unittest' && prev === '-c')
    if (j > from && takes && !FLAG_ONLY.has(prev)) return undefined
    // (a test's id: `tests/test_a.py::test_x`)
    const at = w.replace(/::.*$/s, '')
    if (!isRelativePath(at)) return undefined
    roots.push(path.posix.normalize(at).replace(/\/$/, ''))
  }
  return roots.length ? roots : undefined
}

/** A runner's files with its `**\/` probes (what it finds in any folder) kept to the roots it collects from, and a conftest.py of each folder above them. */
export function scopedProbes(files: readonly string[], roots: readonly string[]): string[] {
  return files.flatMap(f => {
    if (!f.startsWith('**/')) return [f]
    const x = f.slice(3)
    const above = x === 'conftest.py' ? roots.flatMap(r => r.split('/').slice(0, -1).map((_, k, parts) => `${parts.slice(0, k + 1).join('/')}/conftest.py`)) : []
    return [...roots.map(r => `${r}/**/${x}`), ...above]
  })
}

/** A glob's last segment that names files by an extension data and code files have (no folder is named `params.json`). */
const FILE_NAME = /\.(?:json|jsonl|ya?ml|toml|ini|cfg|conf|txt|csv|tsv|md|rst|py|pyc|pyi|[mc]?[jt]sx?|sh|rb|pl|go|rs|c|h|cc|cpp|hpp|java|kt|r|jl|lua|php|sql|html|css|xml|parquet|npy|npz|pkl|pt|bin|png|jpe?g|gif|svg|lock)$/i

/** Where a file a runner reads in any folder (`conftest.py`) could be added: the root, and each folder an editable glob reaches (its plain prefix, and below it). */
export function anywhere(name: string, editable: readonly string[]): string[] {
  const out = [name, `x/${name}`]
  for (const g of editable) {
    // a path the glob takes, its wildcards made plain (`pkg/*/src/**` -> `pkg/x/src/x`): the name in its folder, and below
    const segs = g.split('/').map(seg => seg.replace(/\[[^\]]*\]/g, 'x').replace(/[*?]+/g, 'x') || 'x')
    out.push([...segs.slice(0, -1), name].join('/'))
    // (a glob also stands for what is below it, but one that names a file by a file's extension
    // has nothing below: `params.json` editable made every pytest command "cover params.json/conftest.py")
    if (!FILE_NAME.test(g.slice(g.lastIndexOf('/') + 1))) out.push([...segs, name].join('/'))
  }
  return out
}

/** Where a file a runner reads in any folder below `A` (`A/**\/name`) could be added: in A, and each folder an editable glob reaches below it. */
export function below(probe: string, editable: readonly string[]): string[] {
  const cut = probe.indexOf('/**/')
  const [a, name] = [probe.slice(0, cut), probe.slice(cut + 4)]
  return [`${a}/${name}`, `${a}/x/${name}`, ...anywhere(name, editable).filter(c => c.startsWith(`${a}/`))]
}
