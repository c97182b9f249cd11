// Shared helpers for the benchmarks: temp repos, child-process timing with peak RSS, tables.
import {spawn, execFileSync} from 'node:child_process'
import {closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, mkdirSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
export const ENV = {...process.env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@exp.invalid', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@exp.invalid'}
delete ENV.NODE_OPTIONS

const temps = []
export function tempRepo(name = 'repo') {
  const dir = mkdtempSync(path.join(os.tmpdir(), `exp-bench-${name}-`))
  temps.push(dir)
  execFileSync('git', ['init', '-q', '-b', 'main', dir], {env: ENV})
  return dir
}
export function cleanup() {
  for (const d of temps) rmSync(d, {recursive: true, force: true})
}

export function git(cwd, args, input) {
  return execFileSync('git', args, {cwd, env: ENV, input, maxBuffer: 1 << 30})
}

/** Run a node script in a child process; it prints one JSON line; returns it with the child's peak RSS. */
export function runNode(script, args = [], opts = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], {env: {...ENV, ...opts.env}, cwd: opts.cwd ?? ROOT, stdio: ['pipe', 'pipe', 'inherit']})
    let out = ''
    child.stdout.on('data', d => (out += d))
    child.on('close', code => {
      if (code !== 0) return reject(new Error(`${path.basename(script)} ${args.join(' ')} exited ${code}`))
      const lines = out.trim().split('\n')
      resolve(JSON.parse(lines[lines.length - 1]))
    })
    child.stdin.end(opts.input ?? '')
  })
}

/** Wall time and peak RSS (KB) of any command, via /usr/bin/time when present. */
export function timeCommand(cmd, args, opts = {}) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now()
    const child = spawn('/usr/bin/time', ['-f', '%M', cmd, ...args], {cwd: opts.cwd, env: {...ENV, ...opts.env}, stdio: ['pipe', opts.stdout ?? 'ignore', 'pipe']})
    let err = ''
    child.stderr.on('data', d => (err += d))
    child.on('close', code => {
      const ms = performance.now() - t0
      if (code !== 0) return reject(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${err}`))
      resolve({ms, rssMB: Number(err.trim().split('\n').pop()) / 1024})
    })
    if (opts.input !== undefined) child.stdin.end(opts.input)
    else child.stdin.end()
  })
}

export function fmtMs(ms) {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`
}

export function printTable(title, rows) {
  const header = ['case', 'exp', 'native git', 'ratio', 'exp peak RSS', 'target', 'ok']
  const all = [header, ...rows.map(r => [r.case, r.exp, r.native ?? '', r.ratio ?? '', r.rss ?? '', r.target ?? '', r.ok === undefined ? '' : r.ok ? 'yes' : 'NO'])]
  const w = header.map((_, i) => Math.max(...all.map(r => String(r[i]).length)))
  console.log(`\n${title}`)
  for (const [i, r] of all.entries()) {
    console.log(r.map((c, j) => String(c).padEnd(w[j])).join('  ').trimEnd())
    if (i === 0) console.log(w.map(n => '-'.repeat(n)).join('  '))
  }
}

export function writeResults(name, data) {
  mkdirSync(path.join(ROOT, 'bench/results'), {recursive: true})
  writeFileSync(path.join(ROOT, 'bench/results', `${name}.json`), JSON.stringify({date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, ...data}, null, 2) + '\n')
}

/** The built CLI the benchmarks run. */
export const BIN = path.join(ROOT, 'bin/run.js')

export const pct = x => `${(x * 100).toFixed(1)}%`

/** Run exp with --json, stdout to a file (.git/<name>.json): wall time, peak RSS and the parsed answer. */
export async function expJson(cwd, args, name) {
  const file = path.join(cwd, `.git/${name}.json`)
  const fd = openSync(file, 'w')
  try {
    const r = await timeCommand(process.execPath, [BIN, ...args, '--json'], {cwd, stdout: fd})
    return {...r, res: JSON.parse(readFileSync(file, 'utf8'))}
  } finally {
    closeSync(fd)
  }
}
