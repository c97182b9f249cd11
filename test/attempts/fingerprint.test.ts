import t from 'tap'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {execFileSync} from 'node:child_process'
import {exp, expJson} from '../helpers/cli.js'
import {GIT_ENV, git} from '../helpers/repo.js'
import {quadFixture} from '../helpers/contracts.js'

// Found by an attack sweep: the observation's environment fingerprint ran `PROGRAM --version`
// for the contract command's first word — outside the sandbox, with exp's whole environment
// (GITHUB_TOKEN, EXP_HOLDOUT_KEY) and exp's folder — when its last path part only looked like an
// interpreter: `./python3` and `tools/node` passed, and an attempt's `./python3` ran as exp,
// before (and whatever) the boundary check decided.

const TOKEN = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'

function homeDir(t: {teardown(fn: () => void): void}): string {
  const d = fs.mkdtempSync(path.join(os.homedir(), '.exp-test-fp-'))
  t.teardown(() => fs.rmSync(d, {recursive: true, force: true}))
  return d
}

const realPython = execFileSync('sh', ['-c', 'command -v python3'], {env: GIT_ENV, encoding: 'utf8'}).trim()

/** A program that writes its arguments, folder and environment to `log`, says a version, else runs python3. */
const spy = (log: string) => `#!/bin/sh\n{ echo "ARGS: $*"; echo "CWD: $(pwd)"; env; echo; } >> '${log}' 2>/dev/null\ncase "$1" in --version) echo "Python 9.9.9"; exit 0;; esac\nexec '${realPython}' "$@"\n`

async function setContract(repo: string, command: string, extraProtected: string[] = []): Promise<void> {
  const c = path.join(repo, '.research/contracts/quad.yaml')
  let text = fs.readFileSync(c, 'utf8').replace('command: python3 eval.py dev', `command: ${command} eval.py dev`).replace(/repetitions: 2/g, 'repetitions: 1')
  for (const p of extraProtected) text = text.replace('  - eval.py\n', `  - eval.py\n  - ${p}\n`)
  fs.writeFileSync(c, text)
  await git(repo, 'add', '-A')
  await git(repo, 'commit', '-qm', `the evaluator is ${command}`)
}

interface Obs {
  body: {attempt: string; ran: boolean; boundary: {clean: boolean}; environment: Record<string, string>}
}

t.test("a contract's ./python3 is never run for the fingerprint, before or after the boundary check", async t => {
  const repo = await quadFixture(t)
  const log = path.join(homeDir(t), 'calls')
  fs.writeFileSync(path.join(repo, 'python3'), spy(log), {mode: 0o755})
  await setContract(repo, './python3', ['python3'])
  const env = {GITHUB_TOKEN: TOKEN}
  // one attempt within its scope, one that replaces the protected ./python3 (not run at all)
  const clean = await expJson<{id: string; path: string}>(['attempt', 'new', 'quad'], {cwd: repo, env})
  fs.writeFileSync(path.join(clean.path, 'params.json'), '{"x": 4, "y": 2}\n')
  const bad = await expJson<{id: string; path: string}>(['attempt', 'new', 'quad'], {cwd: repo, env})
  fs.writeFileSync(path.join(bad.path, 'python3'), spy(log).replace('ARGS', 'ATTEMPT ARGS'), {mode: 0o755})
  for (const a of [clean, bad]) {
    const r = await exp(['attempt', 'eval', a.id], {cwd: repo, env})
    t.equal(r.code, a === bad ? 6 : 0, r.stderr)
  }
  const calls = fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : ''
  t.notMatch(calls, /ARGS: --version/, 'no program of the repository was asked its version')
  t.notMatch(calls, /ATTEMPT ARGS/, "the attempt's replacement never ran")
  t.notMatch(calls, TOKEN, 'GITHUB_TOKEN was never seen')
  const obs = await expJson<Obs[]>(['ledger', '--kind', 'observation'], {cwd: repo})
  const of = (id: string) => obs.filter(o => o.body.attempt === id && !o.body.boundary.clean === (id === bad.id))
  t.ok(of(clean.id).length > 0 && of(clean.id).every(o => o.body.ran && o.body.environment.interpreter === './python3: unknown'), 'the clean attempt ran, its interpreter unknown')
  t.ok(of(bad.id).length > 0 && of(bad.id).every(o => !o.body.ran && o.body.environment.interpreter === undefined), 'the violation did not run, and no interpreter was asked')
})

t.test('a bare python3 on PATH is asked its version with nothing of exp: no token, no HOME, not in the repository; not at all for a violation', async t => {
  const repo = await quadFixture(t)
  const home = homeDir(t)
  const log = path.join(home, 'calls')
  const bin = path.join(home, 'bin')
  fs.mkdirSync(bin)
  fs.writeFileSync(path.join(bin, 'python3'), spy(log), {mode: 0o755})
  const env = {GITHUB_TOKEN: TOKEN, PATH: `${bin}:${GIT_ENV.PATH}`}
  const bad = await expJson<{id: string; path: string}>(['attempt', 'new', 'quad'], {cwd: repo, env})
  fs.appendFileSync(path.join(bad.path, 'eval.py'), '# changed\n')
  const r1 = await exp(['attempt', 'eval', bad.id], {cwd: repo, env})
  t.equal(r1.code, 6, 'a boundary violation (recorded)')
  t.notMatch(fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '', /ARGS: --version/, 'a violation asks no interpreter its version')
  const clean = await expJson<{id: string; path: string}>(['attempt', 'new', 'quad'], {cwd: repo, env})
  fs.writeFileSync(path.join(clean.path, 'params.json'), '{"x": 4, "y": 2}\n')
  const r2 = await exp(['attempt', 'eval', clean.id], {cwd: repo, env})
  t.equal(r2.code, 0, r2.stderr)
  const calls = fs.readFileSync(log, 'utf8')
  const asked = calls.split('\n\n').find(c => c.startsWith('ARGS: --version'))
  t.ok(asked, 'the interpreter on PATH was asked its version')
  t.match(asked, `CWD: ${fs.realpathSync(os.tmpdir())}\n`, 'from the scratch folder')
  t.match(asked, /^HOME=\/nonexistent$/m, 'with a HOME that does not exist')
  t.notMatch(calls, TOKEN, 'GITHUB_TOKEN was never seen')
  t.notMatch(asked, /^(GIT_|EXP_)/m, "nothing else of exp's environment")
  const obs = await expJson<Obs[]>(['ledger', '--kind', 'observation'], {cwd: repo})
  t.ok(obs.some(o => o.body.attempt === clean.id && o.body.environment.interpreter === 'python3: Python 9.9.9'), 'its version is recorded')
})

t.test('which programs may be asked their version: a bare name, first found on an absolute PATH entry outside the hidden folders', async t => {
  const {fingerprintable} = await import('../../src/attempts/environment.js')
  const home = homeDir(t)
  const repo = path.join(home, 'repo')
  for (const d of ['tools', 'bin']) fs.mkdirSync(path.join(repo, d), {recursive: true})
  fs.mkdirSync(path.join(home, 'bin'))
  for (const f of [path.join(repo, 'tools', 'python3'), path.join(home, 'bin', 'python3')]) fs.writeFileSync(f, '#!/bin/sh\n', {mode: 0o755})
  fs.symlinkSync(path.join(repo, 'tools', 'python3'), path.join(home, 'bin', 'node'))
  t.equal(fingerprintable('python3', `${home}/bin`, [repo]), path.join(home, 'bin', 'python3'))
  t.equal(fingerprintable('python3', `${repo}/tools:${home}/bin`, [repo]), undefined, 'the first match is in the repository: not run')
  t.equal(fingerprintable('node', `${home}/bin`, [repo]), undefined, 'a link into the repository: not run')
  t.equal(fingerprintable('./python3', `${home}/bin`, []), undefined, 'a path: not run')
  t.equal(fingerprintable('tools/python3', `${home}/bin`, []), undefined)
  const cwd = process.cwd()
  process.chdir(path.join(repo, 'tools'))
  t.teardown(() => process.chdir(cwd))
  t.equal(fingerprintable('python3', `../tools:.:`, []), undefined, 'relative PATH entries are never searched')
})
