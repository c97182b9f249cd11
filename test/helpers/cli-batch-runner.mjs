// The child process of test/helpers/cli-batch.ts: runs many exp command lines one after the
// other in this one process, each as bin/run.js runs it (oclif's execute over dist/, a fresh
// oclif Config each time), with its own current folder, environment, stdout, stderr and exit
// status. What it saves is the start of a process and the load of the command modules (~1 s
// of CPU for a command that imports the world: ajv compiles its tool schemas at load).
//
// usage: node cli-batch-runner.mjs CASES.json RESULTS.json
import fs from 'node:fs'
import path from 'node:path'
import {Readable} from 'node:stream'
import {fileURLToPath, pathToFileURL} from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const {execute} = await import(pathToFileURL(path.join(root, 'dist/vendor/oclif.js')).href)
const dir = pathToFileURL(path.join(root, 'bin/run.js')).href

const [casesFile, resultsFile] = process.argv.slice(2)
const cases = JSON.parse(fs.readFileSync(casesFile, 'utf8'))
const baseEnv = {...process.env}
const write = {out: process.stdout.write, err: process.stderr.write}
const exit = process.exit
const stdin = Object.getOwnPropertyDescriptor(process, 'stdin')
const stdoutFd = process.stdout.fd
const results = []

for (const c of cases) {
  let stdout = ''
  let stderr = ''
  let exited
  const capture = text => (chunk, encoding, cb) => {
    text(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString(typeof encoding === 'string' ? encoding : 'utf8'))
    const done = typeof encoding === 'function' ? encoding : cb
    if (done) process.nextTick(done)
    return true
  }
  for (const k of Object.keys(process.env)) if (!(k in baseEnv)) delete process.env[k]
  Object.assign(process.env, baseEnv)
  for (const [k, v] of Object.entries(c.env ?? {})) {
    if (v === undefined || v === null) delete process.env[k]
    else process.env[k] = v
  }
  process.chdir(c.cwd)
  process.exitCode = undefined
  // oclif's own error handler ends with process.exit(status): note the status, go on to the next case
  process.exit = code => void (exited = code ?? process.exitCode ?? 0)
  // oclif's flush() waits for a 'drain' of stdout that a captured write never needs: its
  // listeners would pile up case after case (and Node warn about a leak on stderr)
  const listening = {out: process.stdout.listeners('drain'), err: process.stderr.listeners('drain')}
  process.stdout.write = capture(s => (stdout += s))
  process.stderr.write = capture(s => (stderr += s))
  // no descriptor to write around the stream with (the ledger's writev path, src/cli/json-stream.ts):
  // everything goes through the captured write
  process.stdout.fd = undefined
  // stdin: the case's input, then its end (as exp() in cli.ts gives a child)
  const input = Readable.from(c.input ? [Buffer.from(c.input)] : [])
  Object.defineProperty(process, 'stdin', {configurable: true, enumerable: true, get: () => input})
  try {
    await execute({args: c.args, dir})
  } catch (e) {
    stderr += `cli-batch-runner: execute threw: ${e?.stack ?? e}\n`
    exited ??= 1
  } finally {
    process.stdout.write = write.out
    process.stderr.write = write.err
    process.exit = exit
    process.stdout.fd = stdoutFd
    Object.defineProperty(process, 'stdin', stdin)
    for (const [stream, before] of [[process.stdout, listening.out], [process.stderr, listening.err]]) for (const l of stream.listeners('drain')) if (!before.includes(l)) stream.removeListener('drain', l)
  }
  results.push({code: exited ?? (typeof process.exitCode === 'number' ? process.exitCode : 0), stdout, stderr})
}

process.exitCode = 0
fs.writeFileSync(resultsFile, JSON.stringify(results))
process.exit(0)
