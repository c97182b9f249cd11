import {createHash} from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {ROOT} from './cli.js'

/** Hash of every file under `inputs` (paths relative to the package root): the fixture's identity. */
function hashInputs(inputs: readonly string[]): string {
  const h = createHash('sha256')
  const walk = (p: string) => {
    const st = fs.statSync(p, {throwIfNoEntry: false})
    if (!st) return
    if (st.isDirectory()) for (const e of fs.readdirSync(p).sort()) walk(path.join(p, e))
    else h.update(path.relative(ROOT, p)).update('\0').update(fs.readFileSync(p)).update('\0')
  }
  for (const i of inputs) walk(path.join(ROOT, i))
  return h.digest('hex').slice(0, 16)
}

/** The lock owner's pid; 0 while the owner has not written it yet (or the lock just went away). */
const readPid = (lock: string) => {
  try {
    return Number(fs.readFileSync(path.join(lock, 'pid'), 'utf8')) || 0
  } catch {
    return 0
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/**
 * A slow fixture (a repository with real loop history) built once and reused by every test
 * file and every later run while the code and data it depends on are unchanged: keyed by a
 * hash of `inputs`, built under a lock directory so parallel test files wait for one build
 * instead of each doing it. A build killed midway leaves a lock naming a dead process,
 * which the next caller breaks. Callers copy `dir` before changing anything in it.
 */
export async function cachedFixture<T>(name: string, inputs: readonly string[], build: (dir: string) => Promise<T>): Promise<{dir: string; data: T}> {
  const root = path.join(os.tmpdir(), `exp-fixture-${name}-${hashInputs(inputs)}`)
  const done = path.join(root, 'fixture.json')
  const lock = `${root}.lock`
  for (let waited = 0; !fs.existsSync(done); waited++) {
    try {
      fs.mkdirSync(lock)
    } catch {
      const pid = readPid(lock)
      if (pid && !alive(pid)) fs.rmSync(lock, {recursive: true, force: true})
      else if (waited > 600) throw new Error(`fixture ${name}: still locked by ${pid} after 5 minutes (${lock})`)
      else await new Promise(r => setTimeout(r, 500))
      continue
    }
    try {
      fs.writeFileSync(path.join(lock, 'pid'), String(process.pid))
      fs.rmSync(root, {recursive: true, force: true})
      const dir = path.join(root, 'repo')
      fs.mkdirSync(dir, {recursive: true})
      const data = await build(dir)
      fs.writeFileSync(done, JSON.stringify(data))
      // fixtures of older code are dead weight, once nobody used them for a day (another
      // checkout's test run may be reading one right now)
      const stale = (d: string) => Date.now() - (fs.statSync(path.join(os.tmpdir(), d), {throwIfNoEntry: false})?.mtimeMs ?? Date.now()) > 24 * 3600 * 1000
      for (const old of fs.readdirSync(os.tmpdir()).filter(d => d.startsWith(`exp-fixture-${name}-`) && path.join(os.tmpdir(), d) !== root && !d.endsWith('.lock') && stale(d))) fs.rmSync(path.join(os.tmpdir(), old), {recursive: true, force: true})
    } finally {
      fs.rmSync(lock, {recursive: true, force: true})
    }
  }
  return {dir: path.join(root, 'repo'), data: JSON.parse(fs.readFileSync(done, 'utf8')) as T}
}
