import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {execFileSync} from 'node:child_process'
import {exp, expJson, ROOT} from '../helpers/cli.js'
import {GIT_ENV, git, makeRepo, tempDir, workingFiles} from '../helpers/repo.js'
import {GitRecordStore} from '../../src/store/index.js'
import {runEvaluation} from '../../src/evals/runner/run.js'
import {detectIsolation} from '../../src/agents/command/sandbox.js'
import {splitSize} from '../helpers/evolve.js'
import {smallExampleRepo as exampleRepo} from '../helpers/loop-example.js'

const FIX = path.join(ROOT, 'test/fixtures/agents')


const rate = (r: {stdout: string}) => (JSON.parse(r.stdout) as {success_rate: number}).success_rate

// Attack 3 of docs/trust.md: an agent that looks for the answers instead of doing the task.
// Every test here runs a command agent (a process per episode) on the small example (a third
// of the built-in scenarios, test/helpers/loop-example.ts): what an agent can see and leak
// does not depend on how many scenarios it is given.

const thief = (mode: string) => `command:python3 ${path.join(FIX, 'gold-thief.py')} ${mode}`
const blindAgent = `command:python3 ${path.join(FIX, 'blind.py')}`

/** Held-out scenarios of one's own: the built-in ones with other ids and task texts (no copy of them exists anywhere else). */
function ownHeldOut(dir: string): void {
  for (const f of fs.readdirSync(path.join(ROOT, 'scenarios')).filter(n => n.startsWith('hold-')).sort().slice(0, 4)) {
    const text = fs.readFileSync(path.join(ROOT, 'scenarios', f), 'utf8').replace(/^id: hold-/m, 'id: own-').replace(/^task: \|\n {2}/m, 'task: |\n  Urgent, from the help desk queue: ')
    fs.writeFileSync(path.join(dir, f.replace(/^hold-/, 'own-')), text)
  }
}

t.test('an agent hunting for the gold trajectories from where it starts scores no better than one that sees nothing', async t => {
  const isolation = await detectIsolation()
  t.comment(`isolation on this machine: ${isolation}`)
  const repo = await exampleRepo(t)
  const stole = await exp(['run', 'holdout', '--agent', thief('near'), '--lane', 'thief', '--json'], {cwd: repo})
  const blind = await exp(['run', 'holdout', '--agent', blindAgent, '--lane', 'blind', '--json'], {cwd: repo})
  t.equal(stole.code, 0, stole.stderr)
  t.equal(blind.code, 0, blind.stderr)
  t.ok(rate(stole) <= rate(blind), `thief ${rate(stole)} <= blind ${rate(blind)}`)
})

t.test('a sealed split of your own: an agent searching the whole machine finds nothing; unsealed and unisolated it would', async t => {
  const isolation = await detectIsolation()
  const repo = await exampleRepo(t)
  fs.rmSync(path.join(repo, 'scenarios', 'holdout.sealed'))
  ownHeldOut(path.join(repo, 'scenarios'))
  t.equal((await exp(['seal'], {cwd: repo})).code, 0)
  t.same(fs.readdirSync(path.join(repo, 'scenarios')).filter(n => n.startsWith('own-')), [], 'the plain files are gone')
  await git(repo, 'add', '-A', 'scenarios')
  await git(repo, 'commit', '-qm', 'our own held-out split, sealed')
  const stole = await exp(['run', 'holdout', '--agent', thief('everywhere'), '--lane', 'thief', '--json'], {cwd: repo})
  const blind = await exp(['run', 'holdout', '--agent', blindAgent, '--lane', 'blind', '--json'], {cwd: repo})
  t.equal(stole.code, 0, stole.stderr)
  if (isolation !== 'none') t.ok(rate(stole) <= rate(blind), `thief ${rate(stole)} <= blind ${rate(blind)}`)
  else t.equal(rate(blind), 0, 'without namespaces the key file in .git/exp is reachable: docs/agent-protocol.md says so')

  // the same thief is dangerous where it can read the files: the comparison above could fail
  const plain = await makeRepo(t)
  fs.mkdirSync(path.join(plain, 'scenarios'))
  ownHeldOut(path.join(plain, 'scenarios'))
  fs.cpSync(path.join(ROOT, 'skills'), path.join(plain, 'skills'), {recursive: true})
  const store = await GitRecordStore.open(plain)
  t.teardown(() => store.close())
  const open = await runEvaluation(store, {split: 'holdout', scenariosDir: path.join(plain, 'scenarios'), skillsDir: path.join(plain, 'skills'), cwd: plain, lane: 'x', repo: store.repo, concurrency: 2, agent: thief('everywhere'), agentOptions: {command: {sandbox: {root: plain, isolation: 'none'}}}})
  t.ok(open.success_rate >= 0.5, `unsealed and unisolated, the thief scores ${open.success_rate}`)
})

t.test('a command agent starts in an empty folder with a scrubbed environment; relative paths resolve against the repository', async t => {
  const repo = await exampleRepo(t)
  fs.mkdirSync(path.join(repo, 'agents'))
  fs.writeFileSync(path.join(repo, 'agents', 'helper.py'), 'WHO = "helper"\n')
  fs.writeFileSync(path.join(repo, 'agents', 'look.py'), [
    'import json, os, sys',
    'sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))',
    'from helper import WHO',
    'sys.stdin.readline()',
    'seen = {"cwd": os.getcwd(), "files": os.listdir("."), "env": sorted(os.environ), "who": WHO, "repo": os.path.exists(os.environ["PROBE"])}',
    'sys.stdout.write(json.dumps({"type": "final", "answer": json.dumps(seen)}) + "\\n")',
  ].join('\n'))
  await git(repo, 'add', 'agents')
  await git(repo, 'commit', '-qm', 'an agent')
  const r = await exp(['run', 'validation', '--agent', 'command:--env VISIBLE --env PROBE python3 agents/look.py', '--lane', 'look', '--concurrency', '1'], {cwd: path.join(repo, 'skills'), env: {VISIBLE: 'yes', PROBE: path.join(repo, 'scenarios'), OPENAI_API_KEY: 'sk-should-not-be-seen-0123456789', HIDDEN: 'no'}})
  t.equal(r.code, 0, r.stderr)
  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  const ledger = await store.ledger()
  const trace = ledger.load<'trace'>(ledger.select({kinds: ['trace'], lanes: ['look']})[0]!).body
  const seen = JSON.parse(trace.final_answer!) as {cwd: string; files: string[]; env: string[]; who: string; repo: boolean}
  t.same(seen.files, [], 'an empty folder')
  t.notOk(seen.cwd.startsWith(repo), 'outside the repository')
  // interpreters and their wrappers add their own (pyenv's shim: PYENV_*, a shell: PWD, SHLVL); nothing of exp's reaches the agent
  const added = (k: string) => k.startsWith('PYENV') || k.startsWith('_PYENV') || k.startsWith('LC_') || ['PWD', 'SHLVL', '_', 'OLDPWD'].includes(k)
  t.same(seen.env.filter(k => !added(k)), ['HOME', 'PATH', 'PROBE', 'TMPDIR', 'VISIBLE'], `only PATH, HOME, TMPDIR and the variables the spec names (${seen.env.join(' ')})`)
  t.equal(seen.who, 'helper', 'the script found its own modules (agents/ was copied out)')
  if ((await detectIsolation()) !== 'none') t.notOk(seen.repo, 'the repository is not visible at all')
  else t.match(r.stderr, /warning: command agents are not isolated on this machine/)
})

t.test('where no namespace can be made, a run with a command agent says the agent is not isolated, once', async t => {
  const repo = await exampleRepo(t)
  // a PATH with the interpreter, git and node only: neither unshare nor bwrap can be found
  const bin = tempDir(t)
  for (const p of ['python3', 'git', 'node']) {
    const found = execFileSync('sh', ['-c', `command -v ${p}`]).toString().trim()
    fs.symlinkSync(found, path.join(bin, p))
  }
  const agent = path.join(bin, 'quiet.py')
  fs.writeFileSync(agent, 'import json, sys\nsys.stdin.readline()\nsys.stdout.write(json.dumps({"type": "final", "answer": "done"}) + "\\n")\n')
  const r = await exp(['run', 'validation', '--agent', `command:python3 ${agent}`, '--lane', 'bare', '--concurrency', '1'], {cwd: repo, env: {PATH: bin}})
  t.equal(r.code, 0, r.stderr)
  t.equal(r.stderr.match(/warning: command agents are not isolated on this machine/g)?.length, 1, r.stderr)
})

// Attack 5 of docs/trust.md: an agent that prints its keys.

t.test('secrets an agent prints or passes to tools reach no object, file, event or report', async t => {
  const repo = await exampleRepo(t)
  const KEY = 'sk-LeakedKey0123456789abcdefXYZ'
  const TOKEN = 'plain-token-value-42'
  const events = path.join(repo, '.git', 'events.jsonl')
  const env = {OPENAI_API_KEY: KEY, SERVICE_TOKEN: TOKEN}
  const r = await exp(['run', 'validation', '--agent', `command:--env OPENAI_API_KEY --env SERVICE_TOKEN python3 ${path.join(FIX, 'crashy.py')}`, '--lane', 'leak', '--events', events, '--repeat', '2'], {cwd: repo, env})
  t.equal(r.code, 0, r.stderr)
  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  t.equal((await store.ledger()).select({kinds: ['trace'], lanes: ['leak']}).length, 2 * splitSize(repo, 'validation'), 'every episode recorded')
  await exp(['report', '--out', path.join(repo, 'results')], {cwd: repo, env})
  await exp(['graph', '--format', 'mermaid'], {cwd: repo, env})
  const objects = execFileSync('git', ['cat-file', '--batch-all-objects', '--batch'], {cwd: repo, env: GIT_ENV, maxBuffer: 1 << 28})
  const files = workingFiles(repo)
  const all = Buffer.concat([objects, ...files, fs.readFileSync(events)])
  for (const secret of [KEY, TOKEN]) t.equal(all.indexOf(secret), -1, `${secret.slice(0, 6)}… appears nowhere`)
  // the agent did leak: its stderr and arguments were there to redact
  const ledger = await store.ledger()
  const invalid = ledger.select({kinds: ['trace'], lanes: ['leak']}).map(e => ledger.load<'trace'>(e).body).filter(b => b.status === 'invalid')
  t.ok(invalid.some(b => /auth failed with OPENAI_API_KEY=\[redacted\]/.test(b.invalid_reason ?? '')), 'the crash reason is kept, redacted')
  const args = ledger.select({kinds: ['trace'], lanes: ['leak']}).flatMap(e => ledger.load<'trace'>(e).body.actions.map(a => JSON.stringify(a.arguments)))
  t.ok(args.some(a => a.includes('[redacted]')), 'tool arguments were redacted before the world saw them')
  const fsck = await expJson<{problems: unknown[]}>(['fsck', '--replay'], {cwd: repo})
  t.same(fsck.problems, [], 'and the redacted traces replay')
})
