#!/usr/bin/env node
// `npm test`'s tap, the arguments passed on, with `python3` on PATH as the interpreter itself
// where the one found first is a launcher (pyenv's shim, a bash script: ~0.3 s and ~25
// processes a start on the CI machine, where a run of Python itself takes ~0.09 s). The tests
// start Python some hundreds of times (the contracts' evaluators, command agents, graders);
// what they test is exp, not the launcher. The link lies beside the dependencies, not in /tmp,
// which the sandbox hides from the programs it runs.
import {execFileSync, spawn} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)))
const env = {...process.env}

/** The interpreter `python3` on PATH runs, when it is not the program found there; undefined without one. */
function launchedPython() {
  let exe
  try {
    exe = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], {encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 30_000}).trim()
  } catch {
    return undefined
  }
  if (!path.isAbsolute(exe) || !fs.existsSync(exe)) return undefined
  const found = (env.PATH ?? '').split(path.delimiter).map(d => path.join(d, 'python3')).find(p => fs.existsSync(p))
  return found && fs.realpathSync(found) === fs.realpathSync(exe) ? undefined : exe
}

const python = launchedPython()
if (python) {
  const bin = path.join(root, 'node_modules', '.cache', 'exp-test-bin')
  fs.mkdirSync(bin, {recursive: true})
  const link = path.join(bin, 'python3')
  // (made beside it and renamed over it: two test runs at once each see a whole link)
  const made = `${link}.${process.pid}`
  fs.rmSync(made, {force: true})
  fs.symlinkSync(python, made)
  fs.renameSync(made, link)
  env.PATH = `${bin}${path.delimiter}${env.PATH ?? ''}`
  process.stderr.write(`tests: python3 is ${python} (the launcher on PATH passed over)\n`)
}

const tap = spawn(path.join(root, 'node_modules', '.bin', 'tap'), process.argv.slice(2), {stdio: 'inherit', env})
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => tap.kill(sig))
tap.on('error', e => {
  process.stderr.write(`cannot start tap: ${e.message}\n`)
  process.exit(1)
})
tap.on('close', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
