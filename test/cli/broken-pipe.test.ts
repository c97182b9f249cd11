import t, {type Test} from 'tap'
import {spawn} from 'node:child_process'
import {BIN, exp} from '../helpers/cli.js'
import {GIT_ENV, git, makeRepo, node} from '../helpers/repo.js'

interface Closed {
  code: number | null
  signal: NodeJS.Signals | null
  stderr: string
  read: number
}

/**
 * Run exp with its stdout on a real pipe whose reader goes away: after the first chunk
 * (`| head -c 100`) or before exp writes anything. With `both`, stderr is the same pipe
 * (`2>&1 | head`).
 */
function closedEarly(args: string[], cwd: string, o: {when: 'first' | 'start'; both?: boolean}): Promise<Closed> {
  return new Promise((resolve, reject) => {
    const [cmd, argv] = node([BIN, ...args])
    // `2>&1`: the shell puts stderr on the stdout pipe, then becomes exp
    const child = o.both ? spawn('/bin/sh', ['-c', 'exec "$@" 2>&1', 'sh', cmd, ...argv], {cwd, env: GIT_ENV, stdio: ['ignore', 'pipe', 'ignore']}) : spawn(cmd, argv, {cwd, env: GIT_ENV, stdio: ['ignore', 'pipe', 'pipe']})
    let stderr = ''
    let read = 0
    child.stderr?.on('data', d => (stderr += d))
    if (o.when === 'start') child.stdout.destroy()
    else
      child.stdout.once('data', (d: Buffer) => {
        read = d.length
        child.stdout.destroy()
      })
    child.on('error', reject)
    child.on('close', (code, signal) => resolve({code, signal, stderr, read}))
  })
}

// 300 notes of ~500 bytes: ~200 KB of ledger, several times a pipe's 64 KiB buffer, so exp
// is still writing when the reader goes away
async function bigLedger(t: Test, branch: string): Promise<{repo: string; id: string}> {
  const repo = await makeRepo(t)
  if (branch !== 'main') await git(repo, 'branch', '-m', 'main', branch)
  const lines = Array.from({length: 300}, (_, i) => JSON.stringify({kind: 'note', body: {text: `note ${i} ${'x'.repeat(500)}`}})).join('\n')
  const r = await exp(['append', '--batch', '-', '--lane', 'big'], {cwd: repo, input: `${lines}\n`})
  t.equal(r.code, 0, r.stderr)
  return {repo, id: r.stdout.trim().split('\n')[0]!}
}

t.test('exp ledger --json | head -c 100: a reader that goes away ends exp quietly, status 0, nothing on stderr', async t => {
  for (const branch of ['master', 'main']) {
    const {repo, id} = await bigLedger(t, branch)
    const runs: [string[], 'first' | 'start'][] = [
      [['ledger', '--json'], 'first'],
      [['ledger', '--json'], 'start'],
      [['ledger'], 'first'],
      [['inspect', id, '--json'], 'start'],
      [['lanes', '--json'], 'start'],
      [['fsck', '--json'], 'start'],
      [['graph'], 'start'],
      [['report', '--json', '--out', 'site'], 'first'],
    ]
    const results = await Promise.all(runs.map(([args, when]) => closedEarly(args, repo, {when})))
    runs.forEach(([args, when], i) => {
      const r = results[i]!
      t.same({code: r.code, signal: r.signal, stderr: r.stderr}, {code: 0, signal: null, stderr: ''}, `${branch}: exp ${args.join(' ')}, reader gone at ${when}`)
      if (when === 'first') t.ok(r.read > 0, 'the reader got the first bytes')
    })
  }
})

t.test('2>&1 | head: with stdout and stderr on one closed pipe exp does not crash on a stderr write', async t => {
  const {repo} = await bigLedger(t, 'main')
  // fsck writes its summary to stderr after its report
  for (const args of [['ledger', '--json'], ['fsck']]) {
    const r = await closedEarly(args, repo, {when: 'start', both: true})
    t.same({code: r.code, signal: r.signal}, {code: 0, signal: null}, `exp ${args.join(' ')} 2>&1, reader gone`)
  }
})

t.test('a closed pipe is not an excuse for a real error: a bad flag still exits non-zero with its message', async t => {
  const {repo} = await bigLedger(t, 'main')
  const r = await closedEarly(['ledger', '--json', '--cites', 'kn-1'], repo, {when: 'start'})
  t.equal(r.code, 2)
  t.match(r.stderr, /--cites "kn-1" is not a record id/)
})

// Found by a first-hour sweep: Ctrl-C in `exp evolve` or `exp run` exited 130 with no word.
t.test('an interrupted command says so: nothing written is lost, and the same command goes on', async t => {
  const repo = await makeRepo(t)
  t.equal((await exp(['init'], {cwd: repo})).code, 0)
  const [cmd, argv] = node([BIN, 'append', '--batch', '-', '--lane', 'me'])
  // (stdin stays open: the command waits for its records)
  const child = spawn(cmd, argv, {cwd: repo, env: GIT_ENV, stdio: ['pipe', 'ignore', 'pipe']})
  let stderr = ''
  child.stderr.on('data', d => (stderr += d))
  const closed = new Promise<number | null>(resolve => child.on('close', code => resolve(code)))
  // once the command runs (its parse is done when it reads stdin): a second is plenty
  await new Promise(r => setTimeout(r, 1500))
  child.kill('SIGINT')
  t.equal(await closed, 130, 'exits as an interrupt')
  t.match(stderr, /interrupted: what was written stays .*run the same command again/)
  t.equal((await git(repo, 'for-each-ref', 'refs/research/lanes/')).trim(), '', 'and wrote nothing')
})
