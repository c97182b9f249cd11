import t, {type Test} from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp} from '../helpers/cli.js'
import {git, gitIn} from '../helpers/repo.js'
import {quadFixture} from '../helpers/contracts.js'
import {checkScope, presentOf} from '../../src/gate/scope.js'
import {gateJUnit} from '../../src/gate/junit.js'
import type {GateResult} from '../../src/gate/gate.js'

/**
 * Attacks by a pull request's author on `exp gate` for a research contract: the gate must
 * judge with the base's contract, evaluator and data, whatever the pull request edits and
 * whatever commit it was branched from.
 */
type Gate = {passed: boolean; reasons: string[]; scope: {ok: boolean; protected: string[]; outside: string[]}; contracts: {verdict: string; dev: {outcome: string}}[]; notes: string[]; certified: boolean}
const gateOf = async (repo: string, args: string[], env: NodeJS.ProcessEnv = {}) => {
  const r = await exp(['gate', ...args, '--json'], {cwd: repo, env})
  const out = JSON.parse(r.stdout) as {error?: {data: Gate}} & Gate
  return {code: r.code, stderr: r.stderr, result: out.error ? out.error.data : out}
}

for (const main of ['main', 'master']) {
  t.test(`${main}: a pull request branched from an older ${main} is not judged by the evaluator ${main} has since fixed`, async t => {
    const repo = await quadFixture(t)
    if (main === 'master') await git(repo, 'branch', '-m', 'main', 'master')
    // an evaluator with a hole: a "bonus" in the parameters counts
    const evalPy = path.join(repo, 'eval.py')
    const fixed = fs.readFileSync(evalPy, 'utf8')
    fs.writeFileSync(evalPy, fixed.replace('score = -((x - target) ** 2) - (y - 2) ** 2', 'score = -((x - target) ** 2) - (y - 2) ** 2 + float(p.get("bonus", 0))'))
    await git(repo, 'commit', '-qam', 'eval: a bonus (a hole)')
    const holed = (await git(repo, 'rev-parse', 'HEAD')).trim()
    fs.writeFileSync(evalPy, fixed)
    await git(repo, 'commit', '-qam', 'eval: the hole fixed')
    await git(repo, 'checkout', '-q', '-b', 'cheat', holed)
    fs.writeFileSync(path.join(repo, 'params.json'), '{"x": 1, "y": 1, "bonus": 1000}\n')
    await git(repo, 'commit', '-qam', 'params: a bonus')
    const g = await gateOf(repo, ['--base', main, '--head', 'cheat'])
    t.equal(g.code, 6, g.stderr)
    t.equal(g.result.passed, false)
    t.match(g.result.reasons.join('\n'), /based on an older|rebase|merge/i)
    t.notOk(g.result.contracts.some(c => c.verdict === 'accept'), 'the old evaluator did not judge it')
    // the same change on the current base is judged by the fixed evaluator, and gains nothing
    await git(repo, 'checkout', '-q', '-b', 'honest', main)
    fs.writeFileSync(path.join(repo, 'params.json'), '{"x": 1, "y": 1, "bonus": 1000}\n')
    await git(repo, 'commit', '-qam', 'params: a bonus')
    const h = await gateOf(repo, ['--base', main, '--head', 'honest'])
    t.equal(h.result.passed, false)
    t.match(h.result.contracts, [{verdict: 'reject', dev: {outcome: 'neutral'}}])
  })
}

t.test('a pull request that widens its own contract, or adds a workflow, is judged by the base\'s contract and refused', async t => {
  const repo = await quadFixture(t)
  await git(repo, 'checkout', '-q', '-b', 'widen')
  const c = path.join(repo, '.research/contracts/quad.yaml')
  fs.writeFileSync(c, fs.readFileSync(c, 'utf8').replace('  - params.json\n', '  - params.json\n  - eval.py\n  - .github/**\n').replace('  - eval.py\n  - data', '  - data'))
  fs.writeFileSync(path.join(repo, 'eval.py'), 'import json\njson.dump({"score": 1000}, open("metrics.json", "w"))\n')
  fs.mkdirSync(path.join(repo, '.github/workflows'), {recursive: true})
  fs.writeFileSync(path.join(repo, '.github/workflows/exp-gate.yml'), 'on: push\njobs: {}\n')
  await git(repo, 'add', '-A')
  await git(repo, 'commit', '-qm', 'a kinder contract')
  const g = await gateOf(repo, ['--base', 'main', '--head', 'widen'])
  t.equal(g.code, 6)
  t.same(g.result.scope.protected.sort(), ['.research/contracts/quad.yaml', 'eval.py'])
  t.same(g.result.scope.outside.sort(), ['.github/workflows/exp-gate.yml', '.research/contracts/quad.yaml', 'eval.py'])
  t.same(g.result.contracts, [], 'nothing was evaluated')
})

t.test('a branch name and commit message with shell metacharacters and control characters are data, never run', async t => {
  const repo = await quadFixture(t)
  const branch = 'x$(touch${IFS}pwned)`touch${IFS}pwned2`;touch${IFS}pwned3'
  await git(repo, 'checkout', '-q', '-b', branch)
  fs.writeFileSync(path.join(repo, 'params.json'), '{"x": 4, "y": 2}\n')
  await git(repo, 'commit', '-qam', 'params $(touch pwned4)\n\x1b[31mred\x07\n\nExp-Promotes: at-000000000000000000000000')
  const g = await gateOf(repo, ['--base', 'main', '--head', branch])
  t.equal(g.code, 0, g.stderr)
  t.equal(g.result.passed, true)
  for (const f of ['pwned', 'pwned2', 'pwned3', 'pwned4']) t.notOk(fs.existsSync(path.join(repo, f)), `${f} was not created`)
  const md = await exp(['gate', '--base', 'main', '--head', branch], {cwd: repo})
  t.notOk(md.stdout.includes('\x1b'), 'no terminal escape reaches the summary')
})

t.test('without the key (a fork), the gate judges a contract with evaluator-only data on dev only and says it cannot certify', async t => {
  const repo = await quadFixture(t)
  fs.rmSync(path.join(repo, '.git/exp/holdout.key'))
  await git(repo, 'checkout', '-q', '-b', 'better')
  fs.writeFileSync(path.join(repo, 'params.json'), '{"x": 4, "y": 2}\n')
  await git(repo, 'commit', '-qam', 'x toward the optimum')
  const g = await gateOf(repo, ['--base', 'main', '--head', 'better'], {EXP_HOLDOUT_KEY: ''})
  t.equal(g.code, 0, g.stderr)
  t.match(g.result, {passed: true, contracts: [{verdict: 'accept', dev: {outcome: 'positive'}}]})
  t.notOk((g.result.contracts[0] as {holdout?: unknown}).holdout, 'no held-out run without the key')
  // and says so (found by red-teaming: it said certified: true, with no note, so a change tuned
  // on the public dev split passed a contract's required held-out check unseen)
  t.match(g.result, {certified: false, notes: [/contract quad: its private data is sealed and no key is available \(EXP_HOLDOUT_KEY\): the held-out check was not made, validation only/]})
  const text = await exp(['gate', '--base', 'main', '--head', 'better'], {cwd: repo, env: {EXP_HOLDOUT_KEY: ''}})
  t.match(text.stdout, /## exp gate: PASS \(validation only, not certified\)/)
  // found by a first-hour sweep: that green check stood for a held-out split nobody judged; the
  // workflow of exp ci init asks for certification, and a gate without the key then fails
  const required = await exp(['gate', '--base', 'main', '--head', 'better', '--require-certified', '--comment', 'c.md'], {cwd: repo, env: {EXP_HOLDOUT_KEY: ''}})
  t.equal(required.code, 6)
  t.match(required.stderr, /gate failed: not certified: the held-out split is sealed and no key is available/)
  t.match(required.stderr, /hint: give the job the key: the repository secret EXP_HOLDOUT_KEY/)
  t.match(fs.readFileSync(path.join(repo, 'c.md'), 'utf8'), /## exp gate: FAIL/)
})

t.test('a protected path is protected in any case and Unicode form: the variant a case-insensitive checkout folds onto it', async t => {
  const contract = {editable_scope: ['src/**', 'data-*.json'], protected_scope: ['src/Eval.py', 'src/harness/**', 'data-café.json', '.research/**']}
  t.match(checkScope(['src/eval.py'], contract), {ok: false, protected: ['src/eval.py']})
  t.match(checkScope(['src/HARNESS/run.py'], contract), {ok: false, protected: ['src/HARNESS/run.py']})
  t.match(checkScope(['data-cafe\u0301.json'], contract), {ok: false, protected: ['data-cafe\u0301.json']}, 'NFD spelling of an NFC name')
  t.match(checkScope(['.Research/contracts/x.yaml'], {editable_scope: ['**'], protected_scope: ['.research/**']}), {ok: false})
  t.match(checkScope(['src/solver.py'], contract), {ok: true})
})

t.test('the JUnit report fails a rejected contract, not only a rejected skill', async t => {
  const r: GateResult = {base: 'a'.repeat(40), head: 'b'.repeat(40), scope: {changed: ['params.json'], outside: [], protected: [], links: [], standIns: [], ok: true}, skills: [], contracts: [{contract: 'quad', changed: ['params.json'], attempt: 'at-x', verdict: 'reject', dev: {repetitions: 1, valid: 1, failed: 0, needs_retry: [], outcome: 'negative', reason: 'worse'}, checks: [{name: 'dev improves', passed: false, detail: 'negative: worse'}]}], stale: [], passed: false, certified: true, reasons: [], notes: []}
  const xml = gateJUnit(r)
  t.match(xml, /<testsuites name="exp gate" tests="4" failures="1"/)
  t.match(xml, /<testsuite name="contract quad"/)
})

/** A new branch `name` that names itself as main_branch in .research/config.yaml and changes params.json: a pull request choosing its own base. */
async function selfNamedBranch(repo: string, name: string): Promise<void> {
  await git(repo, 'checkout', '-q', '-b', name)
  fs.mkdirSync(path.join(repo, '.research'), {recursive: true})
  fs.writeFileSync(path.join(repo, '.research/config.yaml'), `version: 1\nmain_branch: ${name}\n`)
  fs.writeFileSync(path.join(repo, 'params.json'), '{"x": 1, "y": 1}\n')
  await git(repo, 'add', '-A')
  await git(repo, 'commit', '-qm', `${name}: names itself the main branch`)
}

// Found by red-teaming the tour's local gate (`exp gate --approved-by me` on the checked-out
// pull request): without --base the base is the main branch the checked-out
// .research/config.yaml names — the pull request's own copy. One that named its own branch
// made the gate compare it with itself: "0 file(s) changed … PASS", a protected file edited.
t.test('a pull request that names its own branch as main_branch cannot pick the base of a gate run without --base', async t => {
  const repo = await quadFixture(t)
  await selfNamedBranch(repo, 'wording')
  const r = await exp(['gate', '--approved-by', 'me'], {cwd: repo})
  t.equal(r.code, 2, r.stdout)
  t.match(r.stderr, /exp gate needs --base here: the main branch the checked-out \.research\/config\.yaml names is wording, and wording is at the head's very commit/)
  t.match(r.stderr, /hint: give the branch the change goes into, e\.g\. `exp gate --base main --head HEAD`/)
  t.notMatch(r.stdout, /PASS/)
  // named as it should be, the same change is judged against main, and its config edit refused
  const g = await gateOf(repo, ['--base', 'main'])
  t.equal(g.code, 6, g.stderr)
  t.ok(g.result.scope.protected.includes('.research/config.yaml'), 'the protected file is named')
})

/**
 * A clone (through a bare hub) whose pull request `pr` sits on a branch `evil-base` that names
 * itself as main_branch; `noRemoteHead`: the clone has no origin/HEAD, as a clone of an empty
 * repository has it.
 */
async function prOnSelfNamedBase(t: Test, noRemoteHead: boolean): Promise<{clone: string; root: string}> {
  const repo = await quadFixture(t)
  const root = path.dirname(repo)
  const hub = path.join(root, `hub-${path.basename(repo)}.git`)
  await git(root, 'clone', '-q', '--bare', repo, hub)
  const clone = path.join(root, `clone-${path.basename(repo)}`)
  await git(root, 'clone', '-q', hub, clone)
  t.teardown(() => fs.rmSync(clone, {recursive: true, force: true}))
  t.teardown(() => fs.rmSync(hub, {recursive: true, force: true}))
  if (noRemoteHead) await git(clone, 'remote', 'set-head', 'origin', '-d')
  await git(clone, 'config', 'user.name', 'x')
  await git(clone, 'config', 'user.email', 'x@x.invalid')
  // the pull request: a branch of its own that holds the change, named as main_branch
  await selfNamedBranch(clone, 'evil-base')
  await git(clone, 'checkout', '-q', '-b', 'pr')
  fs.writeFileSync(path.join(clone, 'params.json'), '{"x": 1, "y": 2}\n')
  await git(clone, 'commit', '-qam', 'a small change on top')
  return {clone, root}
}

t.test('a clone whose origin names another default branch than the checked-out config does: exp gate without --base asks for one', async t => {
  const {clone} = await prOnSelfNamedBase(t, false)
  const r = await exp(['gate'], {cwd: clone})
  t.equal(r.code, 2, r.stdout)
  t.match(r.stderr, /the main branch the checked-out \.research\/config\.yaml names is evil-base, and origin's default branch is main/)
  t.match(r.stderr, /`exp gate --base main --head HEAD`/)
})

// The tour's clone is of an empty repository: git writes no origin/HEAD then, and the gate
// without --base took the checked-out config's main branch as it was. Origin is asked.
t.test('a clone without origin/HEAD: exp gate without --base asks origin for its default branch', async t => {
  const {clone, root} = await prOnSelfNamedBase(t, true)
  const r = await exp(['gate'], {cwd: clone})
  t.equal(r.code, 2, r.stdout)
  t.match(r.stderr, /the main branch the checked-out \.research\/config\.yaml names is evil-base, and origin's default branch is main/)
  t.notMatch(r.stdout, /PASS/)
  // origin out of reach: it cannot be asked, and the gate goes on as before (docs/trust.md)
  await git(clone, 'remote', 'set-url', 'origin', path.join(root, 'no-such-hub.git'))
  const offline = await exp(['gate'], {cwd: clone})
  t.notMatch(offline.stderr, /origin's default branch is/)
})

// Found by an attack sweep: a pull request changing the editable files of two contracts
// passed the gate's scope check, each contract's evaluation then crossed its own boundary on
// the other's file, and the gate answered "could not run: attempt at-… crosses its contract's
// boundary", naming nothing the author could act on.
t.test("a pull request that changes two contracts' editable files: not judged, and told to split", async t => {
  const repo = await quadFixture(t)
  const c = path.join(repo, '.research/contracts')
  fs.writeFileSync(path.join(c, 'q2.yaml'), fs.readFileSync(path.join(c, 'quad.yaml'), 'utf8').replace('name: quad', 'name: q2').replaceAll('params.json', 'p2.json').replace(/private_data:\n {2}- data\/secret.json\n/, ''))
  fs.writeFileSync(path.join(repo, 'p2.json'), '{"x": 1, "y": 1}\n')
  await git(repo, 'add', '-A')
  await git(repo, 'commit', '-qm', 'a second contract')
  await git(repo, 'checkout', '-q', '-b', 'both')
  for (const f of ['params.json', 'p2.json']) fs.writeFileSync(path.join(repo, f), '{"x": 5, "y": 2}\n')
  await git(repo, 'commit', '-qam', 'both')
  const g = await gateOf(repo, ['--base', 'main', '--head', 'both'])
  t.equal(g.code, 6, g.stderr)
  t.equal(g.result.passed, false)
  t.same(g.result.contracts, [], 'nothing was evaluated')
  t.match(g.result.reasons.join('\n'), /changes files of contract q2 and others \(params\.json\).*split it/)
  t.match(g.result.reasons.join('\n'), /changes files of contract quad and others \(p2\.json\)/)
  const md = await exp(['gate', '--base', 'main', '--head', 'both'], {cwd: repo})
  t.match(md.stdout, /### One contract a pull request/)
  t.notMatch(md.stdout + md.stderr, /could not run|Nothing to evaluate/)
})

t.test("a pull request whose tree holds an editable file twice (git fsck: duplicateEntries) is refused, not judged on either copy", async t => {
  const repo = await quadFixture(t)
  const params = (await git(repo, 'rev-parse', 'HEAD:params.json')).trim()
  const better = (await gitIn(repo, ['hash-object', '-w', '--stdin'], '{"x": 5, "y": 2}\n')).trim()
  const entries = (await git(repo, 'ls-tree', 'HEAD')).trim().split('\n').filter(l => !l.endsWith('\tparams.json'))
  // one copy the honest file, one the better one: which a reader takes is up to the reader
  const tree = await gitIn(repo, ['mktree'], `${[...entries, `100644 blob ${params}\tparams.json`, `100644 blob ${better}\tparams.json`].join('\n')}\n`)
  const commit = await gitIn(repo, ['commit-tree', tree, '-p', 'HEAD', '-m', 'params twice'], undefined)
  await git(repo, 'update-ref', 'refs/heads/twice', commit)
  const r = await exp(['gate', '--base', 'main', '--head', 'twice'], {cwd: repo})
  t.not(r.code, 0, 'the gate does not pass it')
  t.match(r.stderr, /holds "params\.json" twice \(git fsck: duplicateEntries\)/)
})

// Found by a sweep: git takes a tag before a remote's branch, and anyone who may push a branch
// may push a tag named `origin/main`: the workflow's `--base "origin/$BASE_REF"` (and its `git
// show` of the packed exp) then read the attacker's commit as the base, and the gate passed a
// rewritten evaluator ("0 file(s) changed"). A short name two refs hold at different commits is
// refused; the workflow names the base in full.
t.test('a tag named like the base (origin/main) does not become the base the gate judges on', async t => {
  const repo = await quadFixture(t)
  await git(repo, 'update-ref', 'refs/remotes/origin/main', 'main')
  await git(repo, 'checkout', '-q', '-b', 'evil')
  fs.writeFileSync(path.join(repo, 'eval.py'), 'import json\njson.dump({"score": 1000}, open("metrics.json", "w"))\n')
  await git(repo, 'commit', '-qam', 'eval: always 1000')
  await git(repo, 'tag', 'origin/main', 'evil')
  const short = await gateOf(repo, ['--base', 'origin/main', '--head', 'evil'])
  t.equal(short.code, 2, short.stderr)
  t.match(short.stderr, /origin\/main is ambiguous: it names refs\/tags\/origin\/main \([0-9a-f]{12}\), refs\/remotes\/origin\/main/)
  t.match(short.stderr, /refs\/remotes\/origin\/main/)
  const full = await gateOf(repo, ['--base', 'refs/remotes/origin/main', '--head', 'evil'])
  t.equal(full.code, 6, full.stderr)
  t.same(full.result.scope.protected, ['eval.py'], 'judged against the real base: the evaluator was changed')
  // CI's default base is named in full too
  const ci = await gateOf(repo, ['--head', 'evil'], {GITHUB_BASE_REF: 'main'})
  t.equal(ci.code, 6, ci.stderr)
  t.same(ci.result.scope.protected, ['eval.py'])
  // the workflow exp ci init writes names it in full, in the gate and in the install step
  t.equal((await exp(['ci', 'init'], {cwd: repo})).code, 0)
  const wf = fs.readFileSync(path.join(repo, '.github/workflows/exp-gate.yml'), 'utf8')
  t.match(wf, /exp gate --base "refs\/remotes\/origin\/\$BASE_REF"/)
  t.match(wf, /git show "refs\/remotes\/origin\/\$BASE_REF:\$EXP_PACKAGE"/)
  t.notMatch(wf, /"origin\/\$BASE_REF/)
})

t.test("a contract's baseline.revision that a tag shadows is refused, not read as the tag", async t => {
  const repo = await quadFixture(t)
  const {GitRecordStore} = await import('../../src/store/index.js')
  const {GitWorkspace} = await import('../../src/workspace/git.js')
  const first = (await git(repo, 'rev-list', '--max-parents=0', 'main')).trim()
  await git(repo, 'tag', 'main', first)
  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  const ws = new GitWorkspace(store)
  await t.rejects(ws.resolve('main'), {code: 'E_USAGE', message: /main is ambiguous: it names refs\/tags\/main/})
  t.equal(await ws.resolve('refs/heads/main'), (await git(repo, 'rev-parse', 'refs/heads/main')).trim())
  await git(repo, 'tag', '-d', 'main')
  await git(repo, 'tag', 'main', 'main')
  t.equal(await ws.resolve('main'), (await git(repo, 'rev-parse', 'refs/heads/main')).trim(), 'a tag at the same commit is no ambiguity')
})

// Found by an attack sweep: a contract whose editable `solver/**` holds the solver's data, beside
// the protected scorer `solver/score.py` that the protected eval.py imports. A pull request that
// added `solver/score/__init__.py` changed editable paths only, and Python imported that package
// instead of the protected module of its name: the scorer the pull request wrote judged it.
t.test('what a runtime loads in place of a protected file — a package of its name, a file of its stem, its __pycache__ — is protected', async t => {
  const repo = await quadFixture(t)
  fs.mkdirSync(path.join(repo, 'solver'))
  fs.writeFileSync(path.join(repo, 'solver', '__init__.py'), '')
  fs.writeFileSync(path.join(repo, 'solver', 'params.json'), '{"x": 1}\n')
  fs.writeFileSync(path.join(repo, 'solver', 'score.py'), 'def score(x):\n    return -(x - 5) ** 2\n')
  fs.writeFileSync(path.join(repo, 'eval.py'), 'import json\nfrom solver.score import score\nx = json.load(open("solver/params.json"))["x"]\njson.dump({"score": score(x)}, open("metrics.json", "w"))\n')
  const c = path.join(repo, '.research/contracts/quad.yaml')
  fs.writeFileSync(c, fs.readFileSync(c, 'utf8').replace('  - params.json\n', '  - params.json\n  - solver/**\n').replace('  - eval.py\n', '  - eval.py\n  - solver/score.py\n  - solver/__init__.py\n').replace(/repetitions: 2/g, 'repetitions: 1'))
  t.equal((await exp(['contract', 'lint', 'quad'], {cwd: repo})).code, 0, 'the contract is clean')
  await git(repo, 'add', '-A')
  await git(repo, 'commit', '-qm', 'a scorer beside editable solver data')
  await git(repo, 'checkout', '-q', '-b', 'shadow')
  fs.mkdirSync(path.join(repo, 'solver', 'score'))
  fs.writeFileSync(path.join(repo, 'solver', 'score', '__init__.py'), 'def score(x):\n    return 1000\n')
  await git(repo, 'add', '-A')
  await git(repo, 'commit', '-qm', 'a scorer of my own')
  const g = await gateOf(repo, ['--base', 'main', '--head', 'shadow'])
  t.equal(g.code, 6, g.stderr)
  t.same(g.result.scope.protected, ['solver/score/__init__.py'])
  t.same(g.result.contracts, [], 'nothing was evaluated')
  const contract = {editable_scope: ['solver/**', 'lib/**'], protected_scope: ['solver/score.py', 'lib/Data.json']}
  for (const p of ['solver/score.cpython-311-x86_64-linux-gnu.so', 'solver/score.pyc', 'solver/__pycache__/score.cpython-311.pyc', 'solver/SCORE/__init__.py', 'lib/data.js', 'lib/Data/index.js']) t.match(checkScope([p], contract), {ok: false, protected: [p]}, p)
  // (what no runtime loads in place of code is the change's: found by a sweep, `eval.md` and
  // `eval/cases.csv` beside a protected eval.py were refused)
  for (const p of ['solver/scorer.py', 'solver/score_notes.txt', 'solver/x/score.py', 'lib/data-2.json', 'solver/score.md', 'solver/score/cases.csv', 'solver/score.json', 'lib/data.md']) t.match(checkScope([p], contract), {ok: true}, p)
  // a protected name without a dot is its own stem: `bin/run.py` beside a protected `bin/run`, not `bin/ru.py`
  const dotless = {editable_scope: ['bin/**'], protected_scope: ['bin/run']}
  t.match(checkScope(['bin/run.py'], dotless), {ok: false, protected: ['bin/run.py']})
  for (const p of ['bin/ru.py', 'bin/ru/x.py', 'bin/runner.py', 'bin/run.sh']) t.match(checkScope([p], dotless), {ok: true}, p)
  // found by an attack sweep: `lib/__init__.py` added beside a protected `lib/scorer.py` in an
  // editable `lib/**` ran in the protected evaluator before its scorer (and wrote held-out data
  // into the metrics); so do a module `lib.py` beside the folder and their caches
  const nested = {editable_scope: ['lib/**', 'x/**', '*.py'], protected_scope: ['lib/scorer.py', 'x/y/z/*.py', 'harness/**']}
  for (const p of ['lib/__init__.py', 'lib/__pycache__/__init__.cpython-311.pyc', 'lib.py', 'lib.so', '__pycache__/lib.cpython-311.pyc', 'x/__init__.py', 'x/y/__init__.py', 'x/y.py', 'x/y/z/__init__.py', 'x/y/z.py', 'harness.py', 'LIB/__init__.py']) t.match(checkScope([p], nested), {ok: false, protected: [p]}, p)
  for (const p of ['lib/solver.py', 'lib/sub/__init__.py', 'x/y/w.py', 'x/other.py', 'solver.py', '__init__.py', 'library.py']) t.match(checkScope([p], nested), {ok: true}, p)
  // and for globs of wildcard folders, and Node's package.json (the sweep of that fix: `lib/__init__.py`
  // beside a protected `**/scorer.py`, a `lib/package.json` naming another "main" beside `lib/index.js`)
  const wild = {editable_scope: ['**'], protected_scope: ['**/scorer.py', 'lib/index.js', 'web/src/*.ts', '.research/**']}
  for (const p of ['pkg/__init__.py', 'pkg/sub/__init__.py', 'pkg/__pycache__/__init__.cpython-311.pyc', 'lib/package.json', 'web/package.json', 'web/src/package.json']) t.match(checkScope([p], wild), {ok: false, protected: [p]}, p)
  for (const p of ['pkg.py', 'solver.py', 'params.json', 'other/package.json', 'package.json', 'notes/readme.md']) t.same(checkScope([p], wild).protected, [], p)
  // and of the last sweep: an __init__ two folders above a module under a wildcard folder, a
  // node_modules/ package in a folder of protected JavaScript (Node looks there before the root's)
  const deep = {editable_scope: ['**'], protected_scope: ['pkg/*/eval/scorer.py', 'src/*/lib/index.js', 'lib/*.js', '.research/**']}
  for (const p of ['pkg/__init__.py', 'pkg/a/__init__.py', 'pkg/a/eval/__init__.py', 'pkg/a/__pycache__/__init__.cpython-311.pyc', 'src/a/package.json', 'lib/node_modules/scorelib/index.js', 'src/a/node_modules/x/index.js', 'src/a/lib/node_modules/x/package.json']) t.match(checkScope([p], deep), {ok: false, protected: [p]}, p)
  for (const p of ['pkg/a/other/__init__.py', 'node_modules/x/index.js', 'other/node_modules/x/index.js', 'lib/sub/package.json', 'pkg/a/eval/sub/__init__.py']) t.same(checkScope([p], deep).protected, [], p)
})

/**
 * The quad contract whose protected eval.py imports a protected scorer from `from` (a module
 * path), with `files` written, `editable` and `protect` globs added, committed on main; then
 * `branch` holds `change` (the pull request).
 */
async function scorerPullRequest(t: Test, o: {files: Record<string, string>; from: string; editable: string[]; protect: string[]; branch: string; change: Record<string, string>}): Promise<string> {
  const repo = await quadFixture(t)
  const write = (files: Record<string, string>) => {
    for (const [f, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(repo, f)), {recursive: true})
      fs.writeFileSync(path.join(repo, f), text)
    }
  }
  write({...o.files, 'eval.py': `import json, sys\nsys.path.insert(0, ".")\nfrom ${o.from} import score\nx = json.load(open("params.json"))["x"]\njson.dump({"score": score(x)}, open("metrics.json", "w"))\n`})
  const c = path.join(repo, '.research/contracts/quad.yaml')
  const list = (gs: string[]) => gs.map(g => `  - ${JSON.stringify(g)}\n`).join('')
  fs.writeFileSync(c, fs.readFileSync(c, 'utf8').replace('  - params.json\n', `  - params.json\n${list(o.editable)}`).replace('  - eval.py\n', `  - eval.py\n${list(o.protect)}`).replace(/repetitions: 2/g, 'repetitions: 1'))
  t.equal((await exp(['contract', 'lint', 'quad'], {cwd: repo})).code, 0, 'the contract is clean')
  await git(repo, 'add', '-A')
  await git(repo, 'commit', '-qm', 'a protected scorer')
  await git(repo, 'checkout', '-q', '-b', o.branch)
  write(o.change)
  await git(repo, 'add', '-A')
  await git(repo, 'commit', '-qm', 'the pull request')
  return repo
}

// found by an attack sweep: a module `pkg/a.py` beside a namespace folder `pkg/a/` holding the
// protected `pkg/*/scorer.py` ran before it (Python imports a module file before a namespace
// folder of its name); and the converse, a protected `**/test_*.py` made every new
// `__init__.py` protected, folders with no protected file below them among them
t.test('a module beside a folder that holds a protected file is protected; a module beside one that holds none is not', async t => {
  const repo = await scorerPullRequest(t, {files: {'pkg/a/scorer.py': 'def score(x):\n    return -(x - 5) ** 2\n'}, from: 'pkg.a.scorer', editable: ['pkg/**', 'tools/**'], protect: ['pkg/*/scorer.py', 'tools/**/test_*.py'], branch: 'beside', change: {'pkg/a.py': 'import os\n__path__ = [os.path.join(os.path.dirname(__file__), "a")]\n'}})
  const g = await gateOf(repo, ['--base', 'main', '--head', 'beside'])
  t.equal(g.code, 6, g.stderr)
  t.same(g.result.scope.protected, ['pkg/a.py'])
  t.same(g.result.contracts, [], 'nothing was evaluated')
  // a package where a protected glob may reach is protected, though no protected test is there
  // now (protected code may be sealed, or built while the evaluator runs); one beside is not
  await git(repo, 'checkout', '-q', 'main')
  await git(repo, 'checkout', '-q', '-b', 'tools')
  fs.mkdirSync(path.join(repo, 'tools', 'fmt'), {recursive: true})
  fs.writeFileSync(path.join(repo, 'tools', '__init__.py'), '')
  fs.writeFileSync(path.join(repo, 'tools', 'fmt', 'fmt.py'), 'print(1)\n')
  fs.writeFileSync(path.join(repo, 'pkg', 'b.py'), 'print(1)\n')
  await git(repo, 'add', '-A')
  await git(repo, 'commit', '-qm', 'a tools package')
  const ok = await gateOf(repo, ['--base', 'main', '--head', 'tools'])
  t.same(ok.result.scope.protected, ['tools/__init__.py'], ok.stderr)

  // the same, as checkScope reads the trees' protected folders
  const contract = {editable_scope: ['**'], protected_scope: ['pkg/*/scorer.py', '**/test_*.py', 'web/*/index.js']}
  const present = presentOf(['pkg/a/scorer.py', 'pkg/b/util.py', 'src/x/tests/test_one.py', 'web/A/index.js', 'README.md'], contract.protected_scope)
  for (const p of ['pkg/a.py', 'pkg/A.py', 'pkg/a.cpython-311-x86_64-linux-gnu.so', 'pkg/__pycache__/a.cpython-311.pyc', 'pkg/__init__.py', 'pkg/a/__init__.py', 'src/__init__.py', 'src/x.py', 'src/x/__init__.py', 'src/x/tests.py', 'src/x/tests/__init__.py', 'web/a.js', 'web/a/package.json', 'web/a/node_modules/m/index.js']) t.match(checkScope([p], contract, [], present), {protected: [p]}, p)
  for (const p of ['pkg/b.py', 'pkg/c.js', 'src/y.py', 'pkg/a.md', 'readme.py', 'web/b.json']) t.same(checkScope([p], contract, [], present).protected, [], p)
  // the trees add, never take away: a package file where a protected glob may reach is protected without them too
  for (const p of ['pkg/b/__init__.py', 'new/__init__.py', 'web/b/package.json']) {
    t.same(checkScope([p], contract, [], present).protected, [p], p)
    t.same(checkScope([p], contract).protected, [p], p)
  }
  t.same(checkScope(['pkg/a.py'], contract).protected, [], 'without the trees, which folders hold a scorer is unknown')
})

// found by the sweep of that change: with the trees read, (1) `src/__init__.py` above a
// protected folder `src/harness` (a glob without /**) passed, (2) a `node_modules/` package above
// a protected .tsx, (3) what a runtime takes for a file of a glob whose last segment is a
// wildcard (`harness/scorer/__init__.py` beside `harness/scorer.py` of `harness/*.py`), and
// (4) `data/train.json` beside a folder of protected data was refused
t.test('with the trees, what stands before protected code is protected whatever glob names it, and data beside data is not', async t => {
  const repo = await scorerPullRequest(t, {
    files: {'src/harness/score.py': 'def score(x):\n    return -(x - 5) ** 2\n', 'sets/train/labels.csv': 'a,b\n'},
    from: 'src.harness.score',
    editable: ['src/**', 'sets/*.json'],
    protect: ['src/harness', '**/*.csv'],
    branch: 'above',
    change: {'src/__init__.py': 'import json, os\njson.dump({"score": 1000}, open("metrics.json", "w"))\nos._exit(0)\n', 'sets/train.json': '{}\n'},
  })
  const g = await gateOf(repo, ['--base', 'main', '--head', 'above'])
  t.equal(g.code, 6, g.stderr)
  t.same(g.result.scope.protected, ['src/__init__.py'], 'the package is protected, the data file beside a folder of data is not')
  t.match(g.stderr, /protected paths changed: src\/__init__\.py \(src\/__init__\.py: what a runtime loads in place of protected code/)
  t.same(g.result.contracts, [], 'nothing was evaluated')

  const present = (paths: string[], prot: string[]) => presentOf(paths, prot)
  const cases: {prot: string[]; files: string[]; refused: string[]; allowed: string[]}[] = [
    {prot: ['src/harness', '**/*.csv'], files: ['src/harness/score.py', 'x/a.csv'], refused: ['src/__init__.py', 'src/__pycache__/__init__.cpython-311.pyc', 'src/harness.py', 'src/harness/score/__init__.py'], allowed: ['other/__init__.py', 'x/a/b.txt']},
    {prot: ['web/src/*.tsx', 'web/harness'], files: ['web/src/score.tsx', 'web/harness/index.js'], refused: ['web/src/node_modules/ms/index.js', 'web/node_modules/leftpad/index.js', 'web/src/package.json', 'web/package.json', 'web/harness.js', 'web/harness.json', 'web/src/score', 'web/src/score.js'], allowed: ['docs/package.json', 'web/other/index.js']},
    {prot: ['harness/*.py'], files: ['harness/scorer.py'], refused: ['harness/scorer/__init__.py', 'harness/scorer.cpython-311-x86_64-linux-gnu.so', 'harness/__pycache__/scorer.cpython-311.pyc', 'harness/__init__.py', 'harness.py'], allowed: ['harness/other.txt', 'lib/scorer.py']},
    {prot: ['**/*.py'], files: ['harness/scorer.py'], refused: ['harness/__pycache__/scorer.cpython-311.pyc', 'harness/scorer.so'], allowed: ['harness/data.json', 'notes.md']},
    {prot: ['lib/*.js'], files: ['lib/score.js'], refused: ['lib/score', 'lib/score/index.js', 'lib/score.json', 'lib/package.json', 'lib/node_modules/x/index.js'], allowed: ['lib/other.txt', 'other/package.json']},
    {prot: ['sets/**/*.csv', 'models/*/eval.py'], files: ['sets/train/labels.csv', 'models/resnet/eval.py'], refused: ['models/resnet.py', 'models/resnet/__init__.py'], allowed: ['sets/train.json', 'models/resnet.json', 'models/resnet.md', 'sets/train/labels.json']},
    // (and of the sweep after: a folder glob with a dot, protected JSON under a wildcard, a test file's stem, Cython)
    {prot: ['web/vendor/scorer-1.2.0', 'web/.harness'], files: ['web/vendor/scorer-1.2.0/index.js', 'web/.harness/run.js'], refused: ['web/vendor/node_modules/ms/index.js', 'web/vendor/package.json', 'web/node_modules/x/index.js'], allowed: ['web/vendor/readme.md']},
    {prot: ['data/*.json'], files: ['data/target.json'], refused: ['data/target.js', 'data/target', 'data/target/index.js'], allowed: ['data/other.js', 'data/target.csv']},
    {prot: ['src/*.test.js'], files: ['src/solver.test.js'], refused: ['src/solver.test.json', 'src/solver.test/index.js'], allowed: ['src/solver.js', 'src/solver.md']},
    // (and of the sweep after: the cache of a module loaded by its path, whose name has a dot; and what no runtime takes for code)
    {prot: ['harness/*.py'], files: ['harness/score.v2.py'], refused: ['harness/__pycache__/score.v2.cpython-311.pyc', 'harness/__pycache__/score.v2.cpython-311.opt-1.pyc', 'harness/score.v2.so'], allowed: ['harness/score.v2.md', 'harness/__pycache__/score.cpython-311.pyc']},
    {prot: ['eval.py', 'harness/*.py', 'src/solver.test.js', 'types/score.d.ts'], files: ['eval.py', 'harness/score.py', 'src/solver.test.js', 'types/score.d.ts'], refused: ['eval/__init__.py', 'eval.so', 'harness/score.pyc', 'src/solver.test.mjs'], allowed: ['eval.md', 'eval.yaml', 'eval/cases.csv', 'harness/score.json', 'src/solver.js', 'types/score.ts']},
    // (and of the sweep after: ts-node reads the tsconfig.json nearest the script)
    {prot: ['harness/**/*.ts'], files: ['harness/sub/eval.ts'], refused: ['harness/sub/tsconfig.json', 'harness/tsconfig.json', 'harness/jsconfig.json'], allowed: ['docs/tsconfig.json']},
    // (and of the sweep before: Perl loads Score.pmc before Score.pm)
    {prot: ['lib/*.pm'], files: ['lib/Score.pm'], refused: ['lib/Score.pmc', 'lib/score.PMC'], allowed: ['lib/Score.txt', 'lib/Score.py']},
    {prot: ['harness/*.pyx'], files: ['harness/score.pyx'], refused: ['harness/score.py', 'harness/__init__.py', 'harness/score.cpython-311-x86_64-linux-gnu.so'], allowed: ['harness/notes.md']},
  ]
  for (const {prot, files, refused, allowed} of cases) {
    const contract = {editable_scope: ['**'], protected_scope: prot}
    const pr = present(files, prot)
    for (const p of refused) t.same(checkScope([p], contract, [], pr).protected, [p], `${prot.join(' ')}: ${p} refused`)
    for (const p of allowed) t.same(checkScope([p], contract, [], pr).protected, [], `${prot.join(' ')}: ${p} allowed`)
  }
  // and without the trees (lint), a folder glob and .tsx are read as code too
  t.same(checkScope(['src/__init__.py', 'web/src/node_modules/ms/index.js'], {editable_scope: ['**'], protected_scope: ['src/harness', 'web/src/*.tsx']}).protected, ['src/__init__.py', 'web/src/node_modules/ms/index.js'])
})
