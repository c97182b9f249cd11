import path from 'node:path'

/**
 * How the words of an evaluator command read, program by program (command-reads.ts and
 * command-unreadable.ts ask): which names are interpreters, shells, runners and wrappers, which
 * of their options take the next word, where their script or inline code is, and what a path
 * inside the repository looks like as a command names one.
 */

/** An argument that names a program's source by its extension (a script an interpreter runs), not data it reads. */
export const SCRIPT = /\.(py|pyc|pyw|pyz|ipynb|sh|bash|zsh|js|mjs|cjs|ts|mts|cts|rb|pl|pm|php|lua|r|jl|tcl|awk|jar|java|class|kts|groovy|scala|exs?)$/i

/** Programs (and `python -m` modules) that run a Python module given `-m` in turn: coverage, profilers, debuggers, ipython. */
export const PY_WRAPPERS = /^(?:coverage\d*|python\d*-coverage|ipython\d*|cProfile|profile|pdb|trace|pyinstrument|memray|scalene|debugpy|runpy|py-spy|viztracer|uv)$/

/** Interpreters that take code inline, each with the words that give it (`node -e`/`-pe`, `perl -ne`, `ruby -e`, `php -r`, `deno eval`). */
export const INLINE: readonly [RegExp, RegExp][] = [
  [/^(?:node|nodejs|bun|tsx|ts-node)$/, /^(?:-[pe]{1,2}|--eval|--print)(?:=|$)/],
  [/^deno$/, /^eval$/],
  [/^perl\d*(?:\.\d+)*$/, /^-[anlpsw0-9]*[eE]/],
  [/^ruby\d*(?:\.\d+)*$/, /^-[anlpswWvdy]*e/],
  [/^php\d*(?:\.\d+)*$/, /^-[rBRE]$/],
  [/^(?:lua\d*(?:\.\d+)*|luajit|Rscript)$/, /^-e$/],
  [/^julia$/, /^-[eE]$/],
  [/^ipython\d*$/, /^-c$/],
]

/** Standard-library modules that run the modules or files named by their arguments. */
export const ARG_RUNNERS = new Set(['runpy', 'unittest', 'doctest', 'pdb', 'trace', 'cProfile', 'profile'])

/** How an interpreter's words read: its options that take the next word as their value, whether `+x` is an option too (a shell's), and an option whose value is the script (`php -f run`). */
interface ScriptWords {
  takesValue: RegExp
  plus?: boolean
  scriptOption?: string
}

/** Python's `-W`/`-X` (clustered too: `-uW`) take the next word. */
export const PYTHON_WORDS: ScriptWords = {takesValue: /^-[A-Za-z]*[WX]$|^--check-hash-based-pycs$/}
/** Node's `-r`/`--require`/`--import`/`--loader`, … take the next word. */
export const NODE_WORDS: ScriptWords = {takesValue: /^(?:-r|--require|--import|--loader|--experimental-loader|--env-file|--conditions|-C|--input-type)$/}

/**
 * The first argument of an interpreter that is neither an option nor an option's value
 * (`python3 -u tools`, `node --enable-source-maps tools`, `bash -o pipefail run`): the script
 * it runs.
 */
export function firstArgument(tokens: readonly string[], from: number, words: ScriptWords): string | undefined {
  for (let j = from; j < tokens.length; j++) {
    const w = tokens[j]!
    if (w === words.scriptOption && tokens[j + 1]) return tokens[j + 1]
    if (!w.startsWith('-') && !(words.plus && w.startsWith('+'))) return w
    if (words.takesValue.test(w)) j++
  }
  return undefined
}

/** `-f FILE`, `-fFILE`, `--file FILE`, `--file=FILE`: sed's and awk's program file */
const FILE_OPTION = /^(?:-f|--file=?)(.*)$/

/** Tools that read the program they run from a file an option names, by that option (its value glued or the next word). */
export const PROGRAM_FILE: Record<string, RegExp> = {
  sed: FILE_OPTION,
  gsed: FILE_OPTION,
  awk: FILE_OPTION,
  gawk: FILE_OPTION,
  mawk: FILE_OPTION,
  nawk: FILE_OPTION,
  jq: /^(?:-f|--from-file=?)(.*)$/,
  xargs: /^(?:-a|--arg-file=?)(.*)$/,
  // (php's ini file: its auto_prepend_file runs before the script)
  php: /^(?:-c|--php-ini=?)(.*)$/,
}

/**
 * Interpreters whose first argument is the script they run, whatever its name (Python's and
 * Node's have rules of their own), and how their words read (`bash -o pipefail run`, `ruby
 * -I lib tools/eval`, `php -c conf.ini -f run`).
 */
export const SCRIPT_FIRST: readonly [RegExp, ScriptWords][] = [
  [/^(?:r?ba|da|z|k|a)?sh$/, {takesValue: /^[-+][oO]$|^--(?:rcfile|init-file)$/, plus: true}],
  [/^perl\d*(?:\.\d+)*$/, {takesValue: /^-[IMm]$/}],
  [/^ruby\d*(?:\.\d+)*$/, {takesValue: /^-[IrCE]$|^--(?:encoding|external-encoding|internal-encoding|enable|disable)$/}],
  [/^php\d*(?:\.\d+)*$/, {takesValue: /^-[cdzt]$/, scriptOption: '-f'}],
  [/^lua\d*(?:\.\d+)*$/, {takesValue: /^-l$/}],
  [/^(?:Rscript|julia|tclsh)$/, {takesValue: /^-[JL]$/}],
]

/** A Python interpreter's name (`python3`, `python3.12`, `pypy3`, `py`). */
export const PYTHON = /^(?:python|pypy)(?:\d+(?:\.\d+)*)?$|^py$/

/** Programs that set an environment from a file, a folder or their own arguments, then run a command (an attack sweep's `dotenv -f conf/env run` set PYTHONPATH). */
export const ENV_SETTERS = new Set(['dotenv', 'envdir', 'chpst', 'honcho', 'direnv', 'foreman', 'env-cmd', 'cross-env', 'dotenvx'])

/**
 * Shells: given a command string (`bash -c '…'`), they run code lint cannot read. Wider than
 * SCRIPT_FIRST's shells on purpose: `su -c`, `script -c`, `busybox sh -c` run a command string
 * too, but their first argument is no script (a user, a typescript file, an applet).
 */
export const SHELLS = /^(?:r?ba|da|z|k|a|fi|tc|c|mk|ok|lk|pdk|ya|po)?sh$|^(?:busybox|rc|es|pwsh|powershell|nu|xonsh|tclsh|wish|expect|script|su)$/

/** npm's and npx's options that take the next word as their value (`--prefix .`: a sweep's `-c` went unread after one). */
const NPM_VALUE = new Set(['-p', '--package', '--prefix', '-w', '--workspace', '-C', '--dir', '--cwd', '--cache', '--registry', '--userconfig', '--globalconfig', '--loglevel', '--filter', '-F'])

/**
 * Whether npx (or `npm exec`) is given a shell command (`-c '…'`, `--call`) among its own
 * options, before the package it runs: `npx jest -c jest.config.js` is jest's config option.
 */
export function runnerCalls(words: readonly string[], from: number): boolean {
  for (let j = from; j < words.length; j++) {
    const w = words[j]!
    if (w === '-c' || w === '--call' || w.startsWith('--call=')) return true
    if (w === 'exec' || w === 'x' || w === 'dlx') continue
    if (NPM_VALUE.has(w)) j++
    else if (!w.startsWith('-')) return false
  }
  return false
}

/** A path inside the repository as a command may name one (not an option, no `..`, not absolute, not a URL or a variable). */
export function isRelativePath(p: string): boolean {
  return /^[\w.][\w./@+-]*$/.test(p) && !path.posix.isAbsolute(p) && !path.posix.normalize(p).startsWith('..') && path.posix.normalize(p) !== '.'
}

/**
 * Whether a Python interpreter's options (from `tokens[from]`) end with `-m MODULE` or `-c
 * CODE`, read as CPython reads them: short options cluster (`-um`, `-Bm x`, `-uc`), and `-m`,
 * `-c` take the rest of the cluster or the next word; `-W` and `-X` take an argument too.
 */
export function pythonMode(tokens: readonly string[], from: number): {flag: 'm' | 'c'; value: string} | undefined {
  for (let j = from; j < tokens.length; j++) {
    const w = tokens[j]!
    if (!w.startsWith('-') || w === '-' || w === '--') return undefined
    // (a long option that takes a value skips it)
    if (w.startsWith('--')) {
      if (w === '--check-hash-based-pycs') j++
      continue
    }
    for (let k = 1; k < w.length; k++) {
      const ch = w[k]!
      if (ch === 'm' || ch === 'c') return {flag: ch, value: k + 1 < w.length ? w.slice(k + 1) : (tokens[j + 1] ?? '')}
      if (ch === 'W' || ch === 'X') {
        if (k + 1 === w.length) j++
        break
      }
    }
  }
  return undefined
}
