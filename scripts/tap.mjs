// `npm test`'s tap, the arguments passed on, with the folder of the interpreter `python3` runs
// first on PATH where the `python3` found there is a launcher of it (pyenv's shim, a bash
// script: ~0.3 s and ~25 processes a start on the CI machine, where a start of Python itself
// takes ~0.09 s) — what `pyenv exec` does. The tests start Python some hundreds of times (the
// contracts' evaluators, command agents); what they test is exp, not the launcher. (A link to
// the interpreter in the checkout would not do: a checkout in /tmp is hidden by the sandbox
// from the programs it runs.)
import {execFileSync, spawn} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)))
const env = {...process.env}

/** The folder of the interpreter `python3` on PATH runs, when the program found there is another one; undefined otherwise. */
function interpreterFolder() {
  let exe
  try {
    exe = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], {encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 30_000}).trim()
  } catch {
    return undefined
  }
  if (!path.isAbsolute(exe) || !fs.existsSync(exe)) return undefined
  const real = fs.realpathSync(exe)
  const found = (env.PATH ?? '').split(path.delimiter).map(d => path.join(d, 'python3')).find(p => fs.existsSync(p))
  if (!found || fs.realpathSync(found) === real) return undefined
  // (only a folder of its own, not on PATH yet, whose python3 is that interpreter: /usr/bin
  // moved first would change which of every other program runs)
  const dir = path.dirname(exe)
  const own = path.join(dir, 'python3')
  if ((env.PATH ?? '').split(path.delimiter).some(d => d && path.resolve(d) === dir)) return undefined
  return fs.existsSync(own) && fs.realpathSync(own) === real ? dir : undefined
}

const python = interpreterFolder()
if (python) {
  env.PATH = `${python}${path.delimiter}${env.PATH ?? ''}`
  process.stderr.write(`tests: python3 from ${python} (the launcher on PATH passed over)\n`)
}

const tap = spawn(path.join(root, 'node_modules', '.bin', 'tap'), process.argv.slice(2), {stdio: 'inherit', env})
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => tap.kill(sig))
tap.on('error', e => {
  process.stderr.write(`cannot start tap: ${e.message}\n`)
  process.exit(1)
})
tap.on('close', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
