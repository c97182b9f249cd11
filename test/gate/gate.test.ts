import t from 'tap'
import {execFileSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import {exp} from '../helpers/cli.js'
import {makeRepo, git} from '../helpers/repo.js'
import {onboardingOnCommit} from '../helpers/gate-fixtures.js'
import {checkScope, skillsTouched} from '../../src/gate/scope.js'
import {gateMarkdown, knowledgeScopeHint} from '../../src/gate/gate.js'
import {checkInstallSpec} from '../../src/gate/workflow.js'
import {globToRegExp} from '../../src/gate/glob.js'
import {CONTRACT_YAML, SKILLS_CONTRACT_YAML} from '../../src/research/templates.js'
import {parse as parseYaml} from 'yaml'

t.test('scope: globs, editable and protected paths', async t => {
  t.ok(globToRegExp('skills/**').test('skills/onboarding/SKILL.md'))
  t.notOk(globToRegExp('skills/*').test('skills/onboarding/SKILL.md'))
  t.ok(globToRegExp('**/*.yaml').test('a/b/c.yaml'))
  const contract: {editable_scope: [string, ...string[]]; protected_scope: string[]} = {editable_scope: ['skills/**'], protected_scope: ['scenarios/**', '.research/**', 'skills/onboarding/PURPOSE.yaml']}
  t.match(checkScope(['skills/onboarding/SKILL.md'], contract), {ok: true})
  t.match(checkScope(['skills/onboarding/SKILL.md', 'scenarios/x.yaml'], contract), {ok: false, outside: ['scenarios/x.yaml'], protected: ['scenarios/x.yaml']})
  t.match(checkScope(['skills/onboarding/PURPOSE.yaml'], contract), {ok: false, outside: [], protected: ['skills/onboarding/PURPOSE.yaml']})
  t.same(skillsTouched(['skills/a/SKILL.md', 'skills/b/x', 'README.md', 'skills/a/PURPOSE.yaml']), ['a', 'b'])
})

t.test('the contracts exp init writes let a proposal branch through the scope, and nothing that judges', async t => {
  for (const [file, text] of [['.research/contracts/skills.yaml', SKILLS_CONTRACT_YAML], ['.research/contract.yaml', CONTRACT_YAML]] as const) {
    const contract = parseYaml(text) as {editable_scope: [string, ...string[]]; protected_scope: string[]}
    // what `exp propose` commits on exp/proposal/<id>: the skill, its PURPOSE.yaml and the knowledge behind its new lines
    t.match(checkScope(['skills/onboarding/SKILL.md', 'skills/onboarding/PURPOSE.yaml', 'knowledge/missing-check-before-grant-access-2faa6ea8.yaml'], contract), {ok: true}, file)
    for (const p of ['knowledge/evidence/x.yaml', 'knowledge/x.json', '.research/policy.yaml', 'scenarios/val-x.yaml']) t.equal(checkScope([p], contract).ok, false, `${file}: ${p}`)
  }
})

t.test('a contract written before exp init listed knowledge/*.yaml: the gate says how to let proposal branches through', async t => {
  t.match(knowledgeScopeHint(['knowledge/missing-check-2faa6ea8.yaml']), /add `knowledge\/\*\.yaml` to `editable` in \.research\/contracts\/skills\.yaml on the base branch/)
  t.equal(knowledgeScopeHint(['knowledge/evidence/x.yaml', 'scenarios/x.yaml']), undefined, 'only for the knowledge file exp propose writes')
  const r = {passed: false, certified: false, base: 'a'.repeat(40), head: 'b'.repeat(40), notes: [], skills: [], contracts: [], reasons: [], scope: {ok: false, changed: ['knowledge/k.yaml'], outside: ['knowledge/k.yaml'], protected: [], links: []}} as unknown as Parameters<typeof gateMarkdown>[0]
  t.match(gateMarkdown(r), /outside the editable scope: `knowledge\/k\.yaml`\n\nNext step: knowledge\/<slug>\.yaml is the accepted knowledge/)
})

// Found by a sweep: a pull request that only added skills/README.md (in the editable scope, no
// skill's folder) passed with "no skill and no contract's editable file changed": one had.
t.test('a change to editable files that no skill or contract judges says which files, not that none changed', async t => {
  const r = {passed: true, certified: true, base: 'a'.repeat(40), head: 'b'.repeat(40), notes: [], skills: [], contracts: [], reasons: [], scope: {ok: true, changed: ['skills/README.md'], outside: [], protected: [], links: []}} as unknown as Parameters<typeof gateMarkdown>[0]
  t.match(gateMarkdown(r), /Nothing to evaluate: the files changed \(`skills\/README\.md`\) are in the editable scope, but are no skill's/)
  t.match(gateMarkdown({...r, scope: {...r.scope, changed: []}}), /Nothing to evaluate: no file changed\./)
})

t.test('exp gate passes a good skill change, fails a protected-path change and a worse skill; ci init writes the workflow', async t => {
  const {repo, init} = await onboardingOnCommit(t)
  t.equal(init.code, 0)
  const skill = path.join(repo, 'skills/onboarding/SKILL.md')
  const original = fs.readFileSync(skill, 'utf8')
  const withLine = (line: string) => original.replace('## Failure handling', `${line}\n\n## Failure handling`)
  await git(repo, 'checkout', '-q', '-b', 'good')
  // a change large enough for the policy's test to show on the validation split (one rule alone is not)
  const expert = fs.readFileSync(path.join(import.meta.dirname, '../fixtures/skills/onboarding-expert/SKILL.md'), 'utf8').split('\n').filter(l => /^\d+\. (Before|If|Never) `/.test(l))
  t.ok(expert.length >= 8)
  fs.writeFileSync(skill, withLine(expert.slice(0, 8).map((l, i) => l.replace(/^\d+\./, `${7 + i}.`)).join('\n')))
  await git(repo, 'commit', '-qam', 'skill: eight expert rules')
  const good = await exp(['gate', '--base', 'main', '--head', 'good'], {cwd: repo, env: {CI: 'true', GITHUB_STEP_SUMMARY: path.join(repo, 'summary.md'), EXP_EVENTS: path.join(repo, '.git', 'gate-events.jsonl')}})
  t.equal(good.code, 0, good.stderr)
  t.match(good.stdout, /## exp gate: PASS/)
  t.match(good.stdout, /\| validation \| [\d.]+% \| [\d.]+% \|/)
  t.match(fs.readFileSync(path.join(repo, 'summary.md'), 'utf8'), /exp gate: PASS/, 'the step summary got it too')
  const lanes = JSON.parse((await exp(['lanes', '--json'], {cwd: repo})).stdout) as {lane: string}[]
  t.ok(lanes.some(l => l.lane === 'ci'), 'in CI the records went to the ci lane')

  await git(repo, 'checkout', '-q', '-b', 'sneaky', 'main')
  fs.appendFileSync(path.join(repo, 'scenarios', 'val-unknown-employee.yaml'), '\n# easier now\n')
  await git(repo, 'commit', '-qam', 'tweak a scenario')
  // a long command streams lifecycle events (EXP_EVENTS here): the runs of the gate
  const events = fs.readFileSync(path.join(repo, '.git', 'gate-events.jsonl'), 'utf8').trim().split('\n').map(l => JSON.parse(l) as {event: string})
  t.ok(events.some(e => e.event === 'run_started') && events.some(e => e.event === 'run_completed'), 'gate events: runs started and completed')
  const sneaky = await exp(['gate', '--base', 'main', '--head', 'sneaky'], {cwd: repo})
  t.equal(sneaky.code, 6)
  t.match(sneaky.stdout, /protected: `scenarios\/val-unknown-employee.yaml`/)

  await git(repo, 'checkout', '-q', '-b', 'worse', 'main')
  fs.writeFileSync(skill, withLine('7. Never call `grant_access`.'))
  await git(repo, 'commit', '-qam', 'skill: no access at all')
  // on a laptop (no CI variable) the gate records on the user's own lane, never on the one CI writes
  const ciBefore = (JSON.parse((await exp(['lanes', '--json'], {cwd: repo})).stdout) as {lane: string; private: boolean; records: number}[]).filter(l => l.lane === 'ci')
  const worse = await exp(['gate', '--base', 'main', '--head', 'worse', '--json'], {cwd: repo, env: {EXP_LANE: 'alice'}})
  t.equal(worse.code, 6)
  const after = JSON.parse((await exp(['lanes', '--json'], {cwd: repo})).stdout) as {lane: string; private: boolean; records: number}[]
  t.ok(after.some(l => l.lane === 'alice' && l.records > 0), 'a local gate records on its own lane')
  t.same(after.filter(l => l.lane === 'ci'), ciBefore, 'and adds nothing to the ci lane')
  t.match(JSON.parse(worse.stdout).error.data, {passed: false, skills: [{skill: 'onboarding', verdict: 'reject'}]})
  t.match(JSON.parse(worse.stdout).error.hint, 'the candidate does not satisfy .research/policy.yaml (skills)')

  // (exp installed from a spec: what is read below does not depend on how the job installs exp,
  // and the packed copy, seconds of npm, is the last test's)
  const ci = await exp(['ci', 'init', '--install', 'experience-compiler@0.1.0'], {cwd: repo})
  t.equal(ci.code, 0)
  // a pull request runs its own copy of the workflow: only branch protection keeps the gate in force
  t.match(ci.stdout, /require the status check "gate" .* code owner's review of \.github\/.*could skip the gate/)
  const wf = fs.readFileSync(path.join(repo, '.github/workflows/exp-gate.yml'), 'utf8')
  t.match(wf, /pull_request:\n\s+branches: \["main"\]/, 'every pull request to the main branch')
  t.match(wf, /exp gate --base "refs\/remotes\/origin\/\$BASE_REF" --head HEAD --require-certified --junit exp-gate\.xml --comment exp-gate\.md/)
})

// Found walking the tour as a new user: a pull request that adds a skill failed with
// "unknown skill file" and a hint about the ledger.
t.test('exp gate on a pull request that adds a skill says why it cannot judge it, before running anything', async t => {
  const {repo, init} = await onboardingOnCommit(t)
  t.equal(init.code, 0)
  await git(repo, 'checkout', '-q', '-b', 'new-skill')
  fs.mkdirSync(path.join(repo, 'skills/evil'), {recursive: true})
  fs.writeFileSync(path.join(repo, 'skills/evil/SKILL.md'), '# Evil\n\n1. Never call `escalate`.\n')
  await git(repo, 'add', '-A')
  await git(repo, 'commit', '-qm', 'a new skill')
  const r = await exp(['gate', '--base', 'main', '--head', 'new-skill'], {cwd: repo})
  t.equal(r.code, 2, r.stderr)
  t.match(r.stderr, /the head adds skills\/evil\/SKILL\.md: the gate judges a change to a skill against that skill on the base, and the base has none/)
  t.match(r.stderr, /hint: a new skill lands on the main branch in a reviewed commit of its own/)
  t.equal((await git(repo, 'for-each-ref', 'refs/research')).trim(), '', 'nothing recorded')
})

// An attacker's pull request: a SKILL.md of 40 MB (~40 KB once packed for the push). The gate
// names it and stops before reading it or running anything.
t.test('exp gate refuses a pull request whose SKILL.md is over the size exp reads, before reading it', async t => {
  const {repo, init} = await onboardingOnCommit(t)
  t.equal(init.code, 0)
  await git(repo, 'checkout', '-q', '-b', 'huge')
  const skill = path.join(repo, 'skills/onboarding/SKILL.md')
  fs.writeFileSync(skill, fs.readFileSync(skill, 'utf8') + `\n${'Always check twice. '.repeat(2_000_000)}\n`)
  const size = fs.statSync(skill).size
  await git(repo, 'commit', '-qam', 'a huge skill')
  const r = await exp(['gate', '--base', 'main', '--head', 'huge', '--comment', 'comment.md'], {cwd: repo})
  t.equal(r.code, 2, r.stderr)
  t.match(r.stderr, `skills/onboarding/SKILL.md at `)
  t.match(r.stderr, `is ${size} bytes, more than the 16777216 bytes exp reads of a file from a commit`)
  t.match(r.stderr, /hint: the files exp reads from a commit/)
  t.match(fs.readFileSync(path.join(repo, 'comment.md'), 'utf8'), /skills\/onboarding\/SKILL\.md at [0-9a-f]{12} is \d+ bytes/, 'the pull request is told why')
  t.equal((await git(repo, 'for-each-ref', 'refs/research')).trim(), '', 'nothing evaluated or recorded')
})

// An attacker's pull request: a symbolic link inside the editable scope (skills/**) pointing at
// the scenarios. In scope by its path, it is refused for what it is, before anything runs.
t.test('exp gate refuses a pull request that adds a symbolic link, even inside the editable scope', async t => {
  const {repo, init} = await onboardingOnCommit(t)
  t.equal(init.code, 0)
  await git(repo, 'checkout', '-q', '-b', 'link')
  fs.symlinkSync('../../scenarios', path.join(repo, 'skills/onboarding/data'))
  await git(repo, 'add', '-A')
  await git(repo, 'commit', '-qm', 'a link to the scenarios')
  const r = await exp(['gate', '--base', 'main', '--head', 'link', '--junit', 'gate.xml'], {cwd: repo})
  t.equal(r.code, 6, r.stderr)
  t.match(r.stdout, /not a regular file \(a symbolic link, a submodule, or \.gitattributes\/\.gitmodules\): `skills\/onboarding\/data`/)
  t.match(r.stderr, /symbolic links, submodules or \.gitattributes\/\.gitmodules files changed: skills\/onboarding\/data \(a pull request may change regular files only, and not how git checks files out\)/)
  t.match(r.stderr, /hint: a pull request may change regular files only, and not how git checks files out: commit the content in place of the symbolic link or submodule/)
  t.match(fs.readFileSync(path.join(repo, 'gate.xml'), 'utf8'), /<testcase [^>]*name="regular files only"[^>]*>\s*<failure/)
  t.equal((await git(repo, 'for-each-ref', 'refs/research')).trim(), '', 'nothing evaluated or recorded')
})

// The same link written by hand with a mode git still reads as a link (`git mktree` takes
// `120777`; git checks it out as a symbolic link), and a folder with a zero-padded mode
// (`040000`) holding one: each is what git reads it as, not a regular file.
t.test('exp gate reads a tree entry\'s mode as git does: a link or a folder written with an odd mode is still one', async t => {
  const {repo, init} = await onboardingOnCommit(t)
  t.equal(init.code, 0)
  const run = (args: string[], input?: string) => execFileSync('git', args, {cwd: repo, input}).toString().trim()
  const link = run(['hash-object', '-w', '--stdin'], '../../scenarios')
  const skill = run(['ls-tree', 'main:skills/onboarding'])
  const withEntries = (extra: string) => {
    const sub = run(['mktree'], `${skill}\n${extra}\n`)
    const skills = run(['mktree'], `${run(['ls-tree', 'main:skills']).replace(/[0-9a-f]{40}\tonboarding$/m, `${sub}\tonboarding`)}\n`)
    const root = run(['mktree'], `${run(['ls-tree', 'main']).replace(/[0-9a-f]{40}\tskills$/m, `${skills}\tskills`)}\n`)
    return run(['commit-tree', root, '-p', 'main', '-m', 'skill: notes'])
  }
  const inner = run(['mktree'], `120000 blob ${link}\tdata\n`)
  for (const [extra, shown] of [[`120777 blob ${link}\tnotes.md`, 'skills/onboarding/notes.md'], [`040000 tree ${inner}\tmore`, 'skills/onboarding/more/data']] as const) {
    const head = withEntries(extra)
    const r = await exp(['gate', '--base', 'main', '--head', head], {cwd: repo})
    t.equal(r.code, 6, r.stderr)
    t.match(r.stdout, new RegExp(`not a regular file .*\`${shown}\``), `${extra.split(' ')[0]}: refused for what git makes of it`)
  }
  t.equal((await git(repo, 'for-each-ref', 'refs/research')).trim(), '', 'nothing evaluated or recorded')
})

// Found by a sweep: actions/checkout fetches one commit unless told fetch-depth: 0. A gate in a
// shallow clone said only "unknown base revision … pass --base REF" (it had been given), or,
// with no merge base, took the base for it and blamed the pull request for the base's own
// changes ("protected paths changed: .research/policy.yaml"); a branch with no history in
// common with the base was judged as if it had.
t.test('a shallow clone or unrelated history: the gate says so and what to fetch, and judges nothing', async t => {
  const {repo: origin, init} = await onboardingOnCommit(t)
  t.equal(init.code, 0)
  const mainBranch = (await git(origin, 'rev-parse', '--abbrev-ref', 'HEAD')).trim()
  await git(origin, 'switch', '-q', '-c', 'pr')
  fs.mkdirSync(path.join(origin, 'skills', 'x'), {recursive: true})
  fs.writeFileSync(path.join(origin, 'skills', 'x', 'notes.md'), 'a change\n')
  await git(origin, 'add', '-A')
  await git(origin, 'commit', '-q', '-m', 'pr')
  await git(origin, 'switch', '-q', mainBranch)
  fs.appendFileSync(path.join(origin, '.research', 'policy.yaml'), '# the base moved on\n')
  await git(origin, 'commit', '-q', '-am', 'base moves')
  const shallow = path.join(origin, '..', `${path.basename(origin)}-shallow`)
  fs.mkdirSync(shallow)
  await git(shallow, 'init', '-q')
  await git(shallow, 'remote', 'add', 'origin', origin)
  await git(shallow, 'fetch', '-q', '--depth', '1', 'origin', '+refs/heads/pr:refs/remotes/pull/head')
  await git(shallow, 'checkout', '-q', '--detach', 'pull/head')
  const noBase = await exp(['gate', '--base', `origin/${mainBranch}`, '--head', 'HEAD'], {cwd: shallow})
  t.not(noBase.code, 0)
  t.match(noBase.stderr, /this clone is shallow .*fetch-depth: 0/)
  await git(shallow, 'fetch', '-q', '--depth', '1', 'origin', `+refs/heads/${mainBranch}:refs/remotes/origin/${mainBranch}`)
  const noMergeBase = await exp(['gate', '--base', `origin/${mainBranch}`, '--head', 'HEAD'], {cwd: shallow})
  t.equal(noMergeBase.code, 2, noMergeBase.stderr)
  t.match(noMergeBase.stderr, /have no commit in common/)
  t.match(noMergeBase.stderr, /this clone is shallow/)
  t.notMatch(noMergeBase.stdout + noMergeBase.stderr, /protected paths changed/, 'the base\'s change is not blamed on the pull request')
  // a branch with no history in common with the base, in a full clone
  await git(origin, 'switch', '-q', '--orphan', 'orphan')
  await git(origin, 'commit', '-q', '--allow-empty', '-m', 'unrelated')
  const unrelated = await exp(['gate', '--base', mainBranch, '--head', 'HEAD'], {cwd: origin})
  t.equal(unrelated.code, 2, unrelated.stderr)
  t.match(unrelated.stderr, /have no commit in common.*\n.*--orphan/)
})

// Found by sweeps: a path given to `exp ci init --install` is installed from the pull request's
// own checkout, and npm reads more specs as paths than `./x`: `name@./x`, `e@file:x`, `C:x.tgz`.
t.test('--install takes only what npm fetches from elsewhere', async t => {
  for (const ok of ['experience-compiler@0.1.0', 'experience-compiler', '@acme/exp@^1.2.0', 'exp@latest', 'github:acme/exp#8f3e2a1c9d0b', 'acme/exp#v1.0.0', 'gitlab:acme/exp', 'https://example.com/experience-compiler-0.1.0.tgz', 'git+https://github.com/acme/exp.git#8f3e2a1c', 'git+ssh://git@github.com/acme/exp.git#8f3e2a1c']) t.equal(checkInstallSpec(ok), ok, ok)
  for (const bad of ['./vendor/exp.tgz', 'vendor/exp.tgz', 'file:vendor/exp.tgz', 'file:/abs/x.tgz', '/abs/x.tgz', '../exp.tgz', 'experience-compiler@./x', 'e@file:x', 'C:x.tgz', 'C:\\x\\y.tgz', 'git+file:///repo', 'link:../x', '~/x.tgz', 'http://example.com/x.tgz', 'acme/exp.tgz', './x', '.', 'a/..', 'experience-compiler-0.1.0.tgz', 'exp.tar.gz', 'exp.tar', 'EXP.TGZ', 'https://user:ghp_abcdefghijklmnopqrstuvwxyz0123456789@example.com/x.tgz', 'git+https://u:tok@github.com/acme/exp.git']) {
    try {
      checkInstallSpec(bad)
      t.fail(`accepted: ${bad}`)
    } catch (e) {
      t.match((e as Error).message, /cannot be used/, `refused: ${bad}`)
    }
  }
})

// Found by a sweep of exp ci init's packed copy: a folder at its path failed with EISDIR after
// the workflow was written; a kept workflow whose copy was deleted exited 0 with nothing for
// CI to install; a `.gitignore` of `*.tgz` left the copy out of `git add .github`; and a
// folder, or a `-mine.tgz` of the user's, was removed as "an older exp's copy".
t.test("exp ci init's packed copy: a folder in its way, a missing copy, a .gitignore, other files beside it", async t => {
  const repo = await makeRepo(t)
  t.equal((await exp(['init'], {cwd: repo})).code, 0)
  const dir = path.join(repo, '.github', 'exp')
  const copy = path.join(dir, 'experience-compiler-0.1.0.tgz')
  fs.mkdirSync(copy, {recursive: true})
  const blocked = await exp(['ci', 'init'], {cwd: repo})
  t.equal(blocked.code, 2, blocked.stderr)
  t.match(blocked.stderr, /experience-compiler-0\.1\.0\.tgz is a folder/)
  t.notOk(fs.existsSync(path.join(repo, '.github', 'workflows')), 'nothing written')
  fs.rmdirSync(copy)
  // a file where the workflows folder goes, or a folder at the workflow's name, failed only
  // after exp had packed itself (seconds of npm) and written its copy
  const workflows = path.join(repo, '.github', 'workflows')
  fs.writeFileSync(workflows, 'not a folder')
  const inTheWay = await exp(['ci', 'init'], {cwd: repo})
  t.equal(inTheWay.code, 2, inTheWay.stderr)
  t.match(inTheWay.stderr, /\.github\/workflows is not a folder: exp ci init writes \.github\/workflows\/exp-gate\.yml below it/)
  t.notOk(fs.existsSync(copy), 'exp was not packed')
  fs.rmSync(workflows)
  fs.mkdirSync(path.join(workflows, 'exp-gate.yml'), {recursive: true})
  const folder = await exp(['ci', 'init', '--force'], {cwd: repo})
  t.equal(folder.code, 2, folder.stderr)
  t.match(folder.stderr, /exp-gate\.yml is a folder: exp ci init writes the workflow file there/)
  t.notOk(fs.existsSync(copy), 'exp was not packed')
  fs.rmSync(workflows, {recursive: true})
  fs.writeFileSync(path.join(repo, '.gitignore'), '*.tgz\n')
  fs.writeFileSync(path.join(dir, 'experience-compiler-0.0.9.tgz'), 'an older exp')
  fs.writeFileSync(path.join(dir, 'experience-compiler-mine.tgz'), "the user's own")
  fs.mkdirSync(path.join(dir, 'experience-compiler-0.0.8.tgz'))
  const first = await exp(['ci', 'init', '--json'], {cwd: repo})
  t.equal(first.code, 0, first.stderr)
  t.match(JSON.parse(first.stdout), {written: true, removed: ['.github/exp/experience-compiler-0.0.9.tgz'], ignored: true})
  t.match(first.stderr, /is ignored by a \.gitignore here: add it with `git add -f \.github\/exp\/experience-compiler-0\.1\.0\.tgz`/)
  t.ok(fs.existsSync(path.join(dir, 'experience-compiler-mine.tgz')) && fs.statSync(path.join(dir, 'experience-compiler-0.0.8.tgz')).isDirectory(), 'what is not a copy of exp is left alone')
  const bytes = fs.readFileSync(copy)
  fs.rmSync(copy)
  const kept = await exp(['ci', 'init'], {cwd: repo})
  t.equal(kept.code, 0, kept.stderr)
  t.match(kept.stdout, /kept .*exp-gate\.yml.*\n.*wrote .*experience-compiler-0\.1\.0\.tgz .*which the kept workflow installs and was missing/)
  t.same(fs.readFileSync(copy), bytes, 'the same bytes again')
})
