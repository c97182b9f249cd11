import t, {type Test} from 'tap'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {execFileSync} from 'node:child_process'
import {exp} from '../helpers/cli.js'
import {git} from '../helpers/repo.js'

// A repository on a device that is full: appends fail with an error that says so and records
// nothing, reads still answer, and once there is room again everything goes on. The device is a
// real tmpfs of 1 MiB (mounting one takes root: skipped where it cannot be mounted). And one
// mounted read-only: reads answer, an append says why it cannot write.

function mountSmall(size: string): string | undefined {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'exp-full-'))
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], {stdio: 'ignore'})
  } catch {
    fs.rmSync(dir, {recursive: true, force: true})
    return undefined
  }
  t.teardown(() => {
    execFileSync('umount', [dir], {stdio: 'ignore'})
    fs.rmSync(dir, {recursive: true, force: true})
  })
  return dir
}

/** Fill the device: one file, written to until not one more byte fits. */
function fill(dir: string): string {
  const file = path.join(dir, 'filler')
  const fd = fs.openSync(file, 'w')
  const block = Buffer.alloc(16 * 1024, 1)
  try {
    for (let size = block.length; size >= 1; size = Math.floor(size / 2)) {
      for (;;) {
        try {
          fs.writeSync(fd, block, 0, size)
        } catch {
          break
        }
      }
    }
  } finally {
    fs.closeSync(fd)
  }
  return file
}

const NO_MOUNT = 'no tmpfs can be mounted here (root only)'

/** An exp repository on master in `dir`/r with a note for each text. */
async function repoWith(t: Test, dir: string, texts: string[]): Promise<string> {
  const repo = path.join(dir, 'r')
  execFileSync('git', ['init', '-q', '-b', 'master', repo])
  t.equal((await exp(['init'], {cwd: repo})).code, 0)
  for (const text of texts) {
    const r = await exp(['append', 'note', '-'], {cwd: repo, input: `text: ${text}\n`})
    t.equal(r.code, 0, r.stderr)
  }
  return repo
}

const dir = mountSmall('1m')

t.test('a full device: an append says so and records nothing; reads answer; with room again, it goes on', {skip: dir ? false : NO_MOUNT}, async t => {
  if (!dir) return
  const repo = await repoWith(t, dir, ['before the disk filled'])
  const filler = fill(dir)
  const lines = Array.from({length: 50}, (_, i) => JSON.stringify({kind: 'note', body: {text: `note ${i} ${'y'.repeat(2000)}`}})).join('\n')
  for (const [args, input] of [
    [['append', 'note', '-'], 'text: on a full disk\n'],
    [['append', '--batch', '-'], `${lines}\n`],
  ] as const) {
    const r = await exp([...args], {cwd: repo, input})
    t.equal(r.code, 1, `exp ${args.join(' ')}: ${r.stderr}`)
    t.match(r.stderr, /^error: cannot write .*: no space left on the device \(ENOSPC\)$/m, `exp ${args.join(' ')}: says why`)
    t.match(r.stderr, /^hint: make room on the device/m)
    t.notMatch(r.stderr, /unexpected|^\s+at /m, 'not a bug to report, no stack')
  }
  const json = await exp(['append', 'note', '-', '--json'], {cwd: repo, input: 'text: on a full disk\n'})
  t.equal((JSON.parse(json.stdout) as {error: {code: string}}).error.code, 'E_WRITE', '--json: the error as JSON')
  const read = await exp(['ledger', '--json'], {cwd: repo})
  t.equal(read.code, 0, `a read answers on a full disk (its cache is not needed): ${read.stderr}`)
  t.same((JSON.parse(read.stdout) as {body: {text: string}}[]).map(x => x.body.text), ['before the disk filled'], 'nothing of the failed appends was recorded')
  fs.rmSync(filler)
  const again = await exp(['append', 'note', '-'], {cwd: repo, input: 'text: with room again\n'})
  t.equal(again.code, 0, again.stderr)
  const fsck = await exp(['fsck'], {cwd: repo})
  t.equal(fsck.code, 0, fsck.stdout + fsck.stderr)
  t.match(fsck.stdout + fsck.stderr, /^2 records on 1 lane, 0 problems/m)
  t.equal((await git(repo, 'fsck', '--no-dangling')).trim(), '', 'git fsck: clean')
})

const ro = mountSmall('8m')

t.test('a repository on a read-only file system: every read answers, an append names the repository and why', {skip: ro ? false : NO_MOUNT}, async t => {
  if (!ro) return
  const repo = await repoWith(t, ro, ['one', 'two'])
  // no cache: a read would write one
  fs.rmSync(path.join(repo, '.git', 'exp'), {recursive: true, force: true})
  execFileSync('mount', ['-o', 'remount,ro', ro])
  for (const args of [['ledger', '--json'], ['lanes'], ['fsck'], ['frontier']]) {
    const r = await exp(args, {cwd: repo})
    t.equal(r.code, 0, `exp ${args.join(' ')} on a read-only repository: ${r.stderr}`)
  }
  const ledger = await exp(['ledger', '--json'], {cwd: repo})
  t.same((JSON.parse(ledger.stdout) as {body: {text: string}}[]).map(x => x.body.text), ['one', 'two'])
  const r = await exp(['append', 'note', '-'], {cwd: repo, input: 'text: three\n'})
  t.equal(r.code, 1)
  t.match(r.stderr, /^error: cannot write in \S*\.git: the file system is read-only \(EROFS\)$/m, 'names the repository, not a lock file of it')
  t.match(r.stderr, /^hint: the file system is mounted read-only: work in a clone/m)
  t.notMatch(r.stderr, /unexpected|\.lock/)
})
