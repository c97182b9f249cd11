import t from 'tap'
import fs from 'node:fs'
import {spawn} from 'node:child_process'
import {BIN, exp} from '../helpers/cli.js'
import {GIT_ENV, makeRepo, node} from '../helpers/repo.js'

// Standard output that cannot be written (`exp ledger --json > out.json` on a full disk) is
// the user's to fix: one error naming standard output and the reason, a hint, status 1, no
// stack, and what the command recorded stays recorded (src/cli/broken-pipe.ts). /dev/full
// fails every write with ENOSPC, as a full disk does.

const FULL = '/dev/full'
const ENOSPC = /^error: cannot write the output to standard output: no space left on the device \(ENOSPC\)$/gm

/** Run exp with stdout on /dev/full. */
function toFull(args: string[], cwd: string, input?: string): Promise<{code: number | null; stderr: string}> {
  return new Promise((resolve, reject) => {
    const out = fs.openSync(FULL, 'w')
    const [cmd, argv] = node([BIN, ...args])
    const child = spawn(cmd, argv, {cwd, env: GIT_ENV, stdio: ['pipe', out, 'pipe']})
    fs.closeSync(out)
    let stderr = ''
    child.stderr!.on('data', d => (stderr += d))
    child.stdin!.end(input ?? '')
    child.on('error', reject)
    child.on('close', code => resolve({code, stderr}))
  })
}

t.test('reads whose output cannot be written: the reason, once, status 1, no stack', {skip: fs.existsSync(FULL) ? false : `no ${FULL} here`}, async t => {
  const repo = await makeRepo(t)
  const lines = Array.from({length: 200}, (_, i) => JSON.stringify({kind: 'note', body: {text: `note ${i} ${'x'.repeat(400)}`}})).join('\n')
  const added = await exp(['append', '--batch', '-', '--lane', 'big'], {cwd: repo, input: `${lines}\n`})
  t.equal(added.code, 0, added.stderr)
  const id = added.stdout.trim().split('\n')[0]!
  for (const args of [['ledger', '--json'], ['ledger'], ['lanes', '--json'], ['lanes'], ['inspect', id], ['inspect', id, '--json'], ['graph'], ['help']]) {
    const r = await toFull(args, repo)
    const shown = `exp ${args.join(' ')} > ${FULL}`
    t.equal(r.code, 1, `${shown}: status 1 (${r.stderr.slice(0, 300)})`)
    t.equal(r.stderr.match(ENOSPC)?.length, 1, `${shown}: says why, once`)
    t.match(r.stderr, /^hint: make room on the device/m, `${shown}: and what to do`)
    t.notMatch(r.stderr, /oclif-core|Node\.js v|^\s+at /m, `${shown}: no stack, no source line`)
  }
  // an error of the command itself is the one reported
  const usage = await toFull(['ledger', '--no-such-flag'], repo)
  t.equal(usage.code, 2)
  t.match(usage.stderr, /unknown flag: --no-such-flag/)
  t.notMatch(usage.stderr, ENOSPC, 'a usage error is not followed by the output error')
})

t.test('an append whose id cannot be printed keeps its record', {skip: fs.existsSync(FULL) ? false : `no ${FULL} here`}, async t => {
  const repo = await makeRepo(t)
  const r = await toFull(['append', 'note', '-'], repo, 'text: written though unseen\n')
  t.equal(r.code, 1, r.stderr)
  t.match(r.stderr, ENOSPC)
  t.match(r.stderr, /what the command recorded stays recorded/)
  const ledger = await exp(['ledger', '--json'], {cwd: repo})
  t.equal(ledger.code, 0, ledger.stderr)
  t.same((JSON.parse(ledger.stdout) as {body: {text: string}}[]).map(x => x.body.text), ['written though unseen'], 'the record is there')
  const fsck = await exp(['fsck'], {cwd: repo})
  t.equal(fsck.code, 0, fsck.stdout + fsck.stderr)
})
