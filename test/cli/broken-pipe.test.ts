import t, {type Test} from 'tap'
import {execFileSync, spawn} from 'node:child_process'
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

// Found by a sweep of hostile inputs: a FIFO given as the input or an artifact was opened and read
// in a thread of node's pool, where nothing ends a wait: SIGTERM printed "interrupted" and the
// process stayed, waiting for a writer that never came (`timeout` needed -k to end it).
t.test('a FIFO as the input waits for its writer, as cat does, and an interrupt still ends the wait', {skip: process.platform === 'win32' ? 'no FIFOs' : false}, async t => {
  const fs = await import('node:fs')
  const path = await import('node:path')
  const repo = await makeRepo(t)
  t.equal((await exp(['init'], {cwd: repo})).code, 0)
  fs.writeFileSync(path.join(repo, 'note.yaml'), 'text: from a file\n')
  const fifo = path.join(repo, 'in.fifo')
  const run = (args: string[]) => {
    const [cmd, argv] = node([BIN, ...args])
    const child = spawn(cmd, argv, {cwd: repo, env: GIT_ENV, stdio: ['ignore', 'pipe', 'pipe']})
    let out = ''
    child.stdout.on('data', d => (out += d))
    child.stderr.on('data', d => (out += d))
    const closed = new Promise<{code: number | null; signal: string | null; ms: number}>(resolve => {
      const at = Date.now()
      child.on('close', (code, signal) => resolve({code, signal, ms: Date.now() - at}))
    })
    return {child, closed, out: () => out}
  }
  for (const [what, args] of [
    ['the input', ['append', 'note', 'in.fifo']],
    ['an artifact', ['append', 'note', 'note.yaml', '--artifact', 'in.fifo']],
  ] as const) {
    // no writer: the command waits; SIGTERM ends it as an interrupt
    execFileSync('mkfifo', [fifo])
    const waiting = run([...args])
    await new Promise(r => setTimeout(r, 1500))
    const sent = Date.now()
    waiting.child.kill('SIGTERM')
    const kill = setTimeout(() => waiting.child.kill('SIGKILL'), 10_000)
    const r = await waiting.closed
    clearTimeout(kill)
    t.equal(r.code, 143, `${what}, no writer: exits as SIGTERM asks (${r.signal ?? ''}) ${waiting.out()}`)
    t.ok(Date.now() - sent < 5000, `${what}, no writer: at once`)
    // a writer that opens it and says nothing
    const silent = spawn('sh', ['-c', `sleep 30 > '${fifo}'`], {stdio: 'ignore'})
    const reading = run([...args])
    await new Promise(r => setTimeout(r, 1500))
    reading.child.kill('SIGTERM')
    const kill2 = setTimeout(() => reading.child.kill('SIGKILL'), 10_000)
    const r2 = await reading.closed
    clearTimeout(kill2)
    silent.kill('SIGKILL')
    t.equal(r2.code, 143, `${what}, a silent writer: exits as SIGTERM asks (${r2.signal ?? ''}) ${reading.out()}`)
    t.equal((await git(repo, 'for-each-ref', 'refs/research/lanes/')).trim(), '', `${what}: nothing written`)
    fs.rmSync(fifo)
  }
  // a writer that comes later: its text is the record, as `cat in.fifo | exp append note -` would make it
  execFileSync('mkfifo', [fifo])
  const later = run(['append', 'note', 'in.fifo'])
  await new Promise(r => setTimeout(r, 1000))
  fs.writeFileSync(fifo, 'text: through a FIFO\n')
  const r3 = await later.closed
  t.equal(r3.code, 0, `a writer that comes later: appended ${later.out()}`)
  // and a writer that was there first (waiting for a reader: an open that did not wait, closed
  // again, left it with none)
  fs.rmSync(fifo)
  execFileSync('mkfifo', [fifo])
  const first = spawn('sh', ['-c', `printf 'text: a writer first\\n' > '${fifo}'`], {stdio: 'ignore'})
  await new Promise(r => setTimeout(r, 500))
  const after = run(['append', 'note', 'in.fifo'])
  const kill = setTimeout(() => after.child.kill('SIGKILL'), 20_000)
  const r4 = await after.closed
  clearTimeout(kill)
  first.kill('SIGKILL')
  t.equal(r4.code, 0, `a writer there first: appended ${after.out()}`)
  const l = await exp(['ledger', '--json'], {cwd: repo})
  t.match(l.stdout, /through a FIFO/, 'the record holds what the writer wrote')
  t.match(l.stdout, /a writer first/, 'and what the writer there first wrote')
})

// Found by a sweep of inputs that are not files: `exp append note /dev/tty` failed at once with
// "unknown input file: /dev/tty (EAGAIN)" (its non-blocking open made the first read fail). A
// terminal is now read as stdin is from one: lines until Ctrl-D, and an interrupt ends the wait.
const hasPty = (() => {
  try {
    return process.platform !== 'win32' && (execFileSync('python3', ['-c', 'import pty'], {stdio: 'ignore'}), true)
  } catch {
    return false
  }
})()

t.test('/dev/tty as the input reads the terminal until Ctrl-D, and an interrupt ends the wait', {skip: !hasPty && 'needs a pseudo-terminal (python3 pty)'}, async t => {
  const repo = await makeRepo(t)
  t.equal((await exp(['init'], {cwd: repo})).code, 0)
  const [cmd, argv] = node([BIN, 'append', 'note', '/dev/tty'])
  // the command on a pseudo-terminal of its own: typed at (`type`) or interrupted (`term`)
  const driver = `
import os, pty, sys, time, signal, json
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
time.sleep(1.5)
if os.environ['MODE'] == 'type':
    os.write(fd, b'text: typed at the terminal\\n'); time.sleep(0.3); os.write(fd, b'\\x04')
else:
    os.kill(pid, signal.SIGTERM)
start = time.time(); code = None; out = b''
while time.time() - start < 10:
    try:
        out += os.read(fd, 65536) if __import__('select').select([fd], [], [], 0.1)[0] else b''
    except OSError:
        pass
    r = os.waitpid(pid, os.WNOHANG)
    if r[0]:
        code = os.waitstatus_to_exitcode(r[1]); break
if code is None:
    os.kill(pid, signal.SIGKILL)
print(json.dumps({'code': code, 'seconds': time.time() - start, 'out': out.decode(errors='replace')}))
`
  const drive = (mode: string) => JSON.parse(execFileSync('python3', ['-c', driver, cmd, ...argv], {cwd: repo, env: {...GIT_ENV, MODE: mode}, encoding: 'utf8'}).trim().split('\n').pop()!) as {code: number | null; seconds: number; out: string}
  const term = drive('term')
  t.equal(term.code, 143, `SIGTERM while it waits for a line: exits as asked ${term.out}`)
  t.ok(term.seconds < 5, 'at once')
  t.equal((await git(repo, 'for-each-ref', 'refs/research/lanes/')).trim(), '', 'and wrote nothing')
  const typed = drive('type')
  t.equal(typed.code, 0, `typed, then Ctrl-D: appended ${typed.out}`)
  t.notMatch(typed.out, /unknown input file|EAGAIN/)
  const l = await exp(['ledger', '--json'], {cwd: repo})
  t.match(l.stdout, /typed at the terminal/, 'the record holds what was typed')
})
