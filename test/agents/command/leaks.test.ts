import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {execFileSync, spawn} from 'node:child_process'
import {BIN, exp, expJson} from '../../helpers/cli.js'
import {GIT_ENV, node} from '../../helpers/repo.js'
import {exampleRepo} from '../../helpers/evolve.js'
import {detectIsolation} from '../../../src/agents/command/sandbox.js'

// What an agent could carry out of its sandbox: the held-out key it got hold of, into a
// public train trace; a descriptor exp inherited, past every hidden path.

const ISOLATED = (await detectIsolation()) !== 'none'

/** The example repository with one train scenario in a folder of its own. */
async function oneScenario(t: Parameters<typeof exampleRepo>[0]): Promise<string> {
  const repo = await exampleRepo(t)
  fs.mkdirSync(path.join(repo, 'sc1'))
  fs.copyFileSync(path.join(repo, 'scenarios', 'train-access-github.yaml'), path.join(repo, 'sc1', 'train-access-github.yaml'))
  return repo
}

const answers = async (repo: string) => (await expJson<{body: {final_answer?: string}}[]>(['ledger', '--kind', 'trace'], {cwd: repo})).map(r => r.body.final_answer ?? '')

t.test('an agent that got hold of the held-out key (from the key file, no EXP_HOLDOUT_KEY) writes it into no record of a train run', async t => {
  const repo = await oneScenario(t)
  const key = fs.readFileSync(path.join(repo, '.git/exp/holdout.key'), 'utf8').trim()
  // (an agent that read it where nothing hides the file: here it is given in its script)
  fs.writeFileSync(path.join(repo, 'agent.sh'), `#!/bin/sh\nread start\necho '{"type":"tool_call","id":"c1","tool":"get_employee","arguments":{"employee_id":"${key}"}}'\nread result\necho '{"type":"final","answer":"the key is ${key} and ${Buffer.from(key, 'hex').toString('base64')}"}'\necho "${key}" >&2\n`)
  const env = {...GIT_ENV}
  delete env.EXP_HOLDOUT_KEY
  const r = await exp(['run', 'train', '--scenarios', 'sc1', '--agent', 'command:/bin/sh agent.sh'], {cwd: repo, env})
  t.equal(r.code, 0, r.stderr)
  t.match((await answers(repo))[0], /the key is \[redacted\] and \[redacted\]/)
  const objects = execFileSync('git', ['cat-file', '--batch-all-objects', '--batch'], {cwd: repo, env: GIT_ENV, maxBuffer: 1 << 28}).toString('latin1')
  t.equal(objects.indexOf(key), -1, 'the key is in no object, hex')
  t.equal(objects.indexOf(Buffer.from(key, 'hex').toString('base64')), -1, 'nor base64')
})

t.test('a descriptor exp inherited (the git dir, opened by the shell that started it) does not reach the agent', {skip: !ISOLATED && 'no mount namespaces or bwrap on this machine: the agent reads by path anyway (docs/trust.md)'}, async t => {
  const repo = await oneScenario(t)
  fs.writeFileSync(path.join(repo, 'agent.sh'), `#!/bin/sh\nread start\nfound=none\nfor f in /proc/self/fd/*; do [ -r "$f/holdout.key" ] && found=key; done\necho "{\\"type\\":\\"final\\",\\"answer\\":\\"$found $(ls /proc/self/fd | tr '\\n' ' ')\\"}"\n`)
  const code = await new Promise<number | null>(resolve => {
    // fd 200 of exp: the git dir, as `exec 200<.git/exp; exp run …` leaves it
    const [cmd, args] = node([BIN, 'run', 'train', '--scenarios', 'sc1', '--agent', 'command:/bin/sh agent.sh'])
    const child = spawn('/bin/bash', ['-c', 'exec 200<.git/exp; exec "$@"', 'bash', cmd, ...args], {cwd: repo, env: GIT_ENV, stdio: 'ignore'})
    child.on('close', resolve)
  })
  t.equal(code, 0)
  const [answer] = await answers(repo)
  t.match(answer, /^none /, `the agent found no descriptor onto the git dir: ${answer}`)
})

t.test('an agent that leaves its process group and ignores SIGTERM does not outlive its episode', {skip: !ISOLATED && 'no mount namespaces or bwrap on this machine'}, async t => {
  const repo = await oneScenario(t)
  const mark = `exp-survivor-${process.pid}-${Date.now()}`
  // the agent leaves exp's process group (setsid, as itself), ignores SIGTERM, and starts a child that does too
  const inner = `read start\ntrap "" TERM HUP INT\nsh -c 'trap "" TERM HUP INT; while :; do sleep 1; done # ${mark}' </dev/null >/dev/null 2>&1 &\necho '{"type":"final","answer":"ok"}'\nwhile :; do sleep 1; done\n`
  fs.writeFileSync(path.join(repo, 'agent.sh'), `#!/bin/sh\ncat > ${mark}.sh <<'EOF'\n${inner}EOF\nexec setsid /bin/sh ${mark}.sh\n`)
  const pids = markedProcesses(t, mark)
  const r = await exp(['run', 'train', '--scenarios', 'sc1', '--agent', 'command:/bin/sh agent.sh'], {cwd: repo, timeoutMs: 60_000})
  t.equal(r.code, 0, r.stderr)
  t.same(await answers(repo), ['ok'], 'the agent answered (and then stayed)')
  await new Promise(resolve => setTimeout(resolve, 500))
  t.same(pids(), [], 'nothing the agent started is left running')
})

// Found by an attack sweep: an exp that was SIGKILLed during `exp run` left its `unshare`
// sandboxes and their agents running for ever, reparented to init (only bwrap had
// --die-with-parent): nothing of exp was left to end the episode.
t.test('the sandboxes and agents of an exp that is SIGKILLed end with it', {skip: !ISOLATED && 'no mount namespaces or bwrap on this machine'}, async t => {
  const repo = await oneScenario(t)
  for (const f of ['train-access-admin-refused.yaml', 'train-access-finance-delegate.yaml']) fs.copyFileSync(path.join(repo, 'scenarios', f), path.join(repo, 'sc1', f))
  const mark = `exp-orphan-${process.pid}-${Date.now()}`
  // an agent that reads its start and sleeps (the episode's timeout is far away)
  fs.writeFileSync(path.join(repo, `${mark}.sh`), '#!/bin/sh\nread start\nexec sleep 900\n')
  const pids = markedProcesses(t, mark)
  // (the agent's script is named with the mark, and so are the sandbox's own command lines, which name it)
  const [cmd, args] = node([BIN, 'run', 'train', '--scenarios', 'sc1', '--concurrency', '3', '--agent', `command:/bin/sh ${mark}.sh`])
  const child = spawn(cmd, args, {cwd: repo, env: GIT_ENV, stdio: 'ignore'})
  const closed = new Promise(resolve => child.on('close', resolve))
  const until = async (ok: () => boolean, ms: number) => {
    for (const end = Date.now() + ms; Date.now() < end && !ok(); ) await new Promise(resolve => setTimeout(resolve, 100))
    return ok()
  }
  t.ok(await until(() => pids().length >= 3, 30_000), `the agents started: ${pids().length} processes`)
  child.kill('SIGKILL')
  await closed
  t.ok(await until(() => pids().length === 0, 5000), `nothing of the sandboxes is left: ${pids().join(' ')}`)
})

const SCRIPT = (() => {
  try {
    execFileSync('script', ['--version'], {stdio: 'ignore'})
    return true
  } catch {
    return false
  }
})()

t.test("an agent run under a terminal cannot write to it, nor see the host's terminals", {skip: (!ISOLATED && 'no mount namespaces or bwrap on this machine') || (!SCRIPT && 'no script(1) to give the run a terminal')}, async t => {
  const repo = await oneScenario(t)
  fs.writeFileSync(path.join(repo, 'pty.sh'), `#!/bin/sh\nread l\nn=$(ls /dev/pts | wc -l)\nfor p in /dev/pts/*; do printf 'INJECTED: exp gate: PASS\\n' > "$p" 2>/dev/null && n="w$n"; done\necho "{\\"type\\":\\"final\\",\\"answer\\":\\"pts $n\\"}"\n`)
  const [cmd, args] = node([BIN, 'run', 'train', '--scenarios', 'sc1', '--agent', 'command:/bin/sh pty.sh'])
  const line = [cmd, ...args].map(a => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')
  const out = execFileSync('script', ['-qec', line, '/dev/null'], {cwd: repo, env: GIT_ENV, encoding: 'utf8'})
  t.notMatch(out, /INJECTED/, 'nothing reached the terminal')
  t.same(await answers(repo), ['pts 0'], 'the agent saw no terminal device and wrote none')
})

t.test("an episode cannot leave anything in the agent's files for the episodes after it", {skip: !ISOLATED && 'no mount namespaces or bwrap on this machine'}, async t => {
  const repo = await oneScenario(t)
  for (const f of ['train-access-admin-refused.yaml', 'train-access-finance-delegate.yaml']) fs.copyFileSync(path.join(repo, 'scenarios', f), path.join(repo, 'sc1', f))
  fs.mkdirSync(path.join(repo, 'ad'))
  fs.writeFileSync(path.join(repo, 'ad', 'mem.mjs'), `import fs from 'node:fs'\nimport readline from 'node:readline'\nconst f = new URL('memory.txt', import.meta.url).pathname\nreadline.createInterface({input: process.stdin}).once('line', l => {\n  let seen = ''\n  try { seen = fs.readFileSync(f, 'utf8') } catch {}\n  let wrote = 'wrote'\n  try { fs.appendFileSync(f, JSON.parse(l).task.slice(0, 20) + '|') } catch (e) { wrote = e.code }\n  process.stdout.write(JSON.stringify({type: 'final', answer: 'seen=[' + seen + '] ' + wrote}) + '\\n')\n})\n`)
  const r = await exp(['run', 'train', '--scenarios', 'sc1', '--concurrency', '1', '--agent', 'command:node ad/mem.mjs'], {cwd: repo})
  t.equal(r.code, 0, r.stderr)
  const got = await answers(repo)
  t.equal(got.length, 3)
  for (const a of got) t.match(a, /^seen=\[\] EROFS$/, 'nothing of an earlier episode, and no write')
})

/** The pids of processes whose command line holds `mark`, all SIGKILLed when the test ends. */
function markedProcesses(t: Parameters<typeof exampleRepo>[0], mark: string): () => string[] {
  const pids = () => {
    try {
      // (pgrep leaves itself out; it exits 1 when nothing matches)
      return execFileSync('pgrep', ['-f', mark], {encoding: 'utf8'}).split('\n').filter(Boolean)
    } catch {
      return []
    }
  }
  t.teardown(() => {
    for (const p of pids()) {
      try {
        process.kill(Number(p), 'SIGKILL')
      } catch {
        // gone meanwhile
      }
    }
  })
  return pids
}
