import t from 'tap'
import {execFile} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {ROOT} from '../helpers/cli.js'
import {GIT_ENV, git, plain} from '../helpers/repo.js'
import {runJob} from '../helpers/workflow.js'
import {COMMENT_MARKER} from '../../src/gate/workflow.js'
import {builtinCounts} from '../helpers/scenarios.js'

const COUNT = await builtinCounts()

// Problems 2 and 4 of issue 13, the way a stranger meets exp: from `npm pack`'s tarball,
// installed into an empty prefix, in repositories that are not the exp repository, on
// stock git's master. Then the workflow `exp ci init` writes, its steps run here as written.

/** The environment without npm's own variables (npm test sets them for its scripts). */
const ENV: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(GIT_ENV).filter(([k]) => !k.toLowerCase().startsWith('npm_')))

function sh(cmd: string, args: string[], o: {cwd: string; env?: NodeJS.ProcessEnv}): Promise<{code: number; stdout: string; stderr: string}> {
  return new Promise(resolve => {
    execFile(...plain(cmd, args), {cwd: o.cwd, env: {...ENV, ...o.env}, maxBuffer: 64 * 1024 * 1024}, (err, stdout, stderr) => resolve({code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr}))
  })
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'exp-pack-'))
t.teardown(() => fs.rmSync(work, {recursive: true, force: true}))

// packed as `npm pack` packs, with its prepack and postpack (scripts/pack-manifest.mjs), but
// the build of `npm test` is what gets packed (EXP_PACK_PREBUILT: no second build under running tests)
const packed = await sh('npm', ['pack', '--pack-destination', work, '--json'], {cwd: ROOT, env: {EXP_PACK_PREBUILT: '1'}})
if (packed.code !== 0) throw new Error(`npm pack: ${packed.stderr}`)
const info = (JSON.parse(packed.stdout) as {filename: string; files: {path: string}[]}[])[0]!
const tarball = path.join(work, info.filename)

/** npm install --global into a prefix of its own, from the local cache when it can. */
async function install(prefix: string, spec: string) {
  return sh('npm', ['install', '--global', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', spec], {cwd: work})
}

t.test('the tarball holds the built-in example, docs and manual pages, and no sources or tests', async t => {
  const files = new Set(info.files.map(f => f.path))
  for (const f of ['bin/run.js', 'bin/git-exp.js', 'dist/vendor/oclif.js', 'oclif.manifest.json', 'skills/onboarding/SKILL.md', 'skills/onboarding/PURPOSE.yaml', 'scenarios/train-access-github.yaml', 'schemas/records/trace.schema.json', 'man/git-exp.1', 'docs/commands.md', 'README.md', 'package.json']) t.ok(files.has(f), f)
  t.equal([...files].filter(f => f.startsWith('scenarios/')).length, COUNT.all)
  t.notOk([...files].some(f => f.startsWith('src/') || f.startsWith('test/') || f === 'bin/dev.js'), 'no sources, tests or the development bin')
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {private?: boolean; scripts: Record<string, string>}
  t.notOk(pkg.private, 'publishable')
  // the packed manifest has no `prepare` (npm 11 warns of it on every install of the tarball);
  // the checkout's keeps it (an install from git builds with it) and is put back as it was
  const x = await sh('tar', ['xzf', tarball, '-O', 'package/package.json'], {cwd: work})
  const packedPkg = JSON.parse(x.stdout) as {scripts: Record<string, string>; version: string}
  t.notOk('prepare' in packedPkg.scripts, 'no prepare script in the tarball')
  t.equal(packedPkg.version, (pkg as {version?: string}).version)
  t.equal(pkg.scripts.prepare, 'npm run build', 'the checkout keeps prepare')
  t.notOk(fs.existsSync(path.join(ROOT, 'package.json.prepack')), 'postpack put the original back')
})

t.test('installed from the tarball: exp --help, exp init --example onboarding on master, exp demo, git exp --help', async t => {
  const prefix = path.join(work, 'prefix')
  const inst = await install(prefix, tarball)
  t.equal(inst.code, 0, inst.stderr)
  t.notMatch(inst.stderr, /install-scripts|allowScripts/, 'npm lists no install script of exp')
  const env = {PATH: `${path.join(prefix, 'bin')}:${process.env.PATH}`, MANPATH: path.join(prefix, 'share', 'man'), MANPAGER: 'cat', PAGER: 'cat'}
  const help = await sh('exp', ['--help'], {cwd: work, env})
  t.equal(help.code, 0, help.stderr)
  t.match(help.stdout, /^COMMANDS$/m)
  t.equal(help.stderr, '', 'no warnings (no update notifier)')
  const repo = path.join(work, 'fresh')
  await git(work, '-c', 'init.defaultBranch=master', 'init', '-q', repo)
  const init = await sh('exp', ['init', '--example', 'onboarding'], {cwd: repo, env})
  t.equal(init.code, 0, init.stderr)
  t.notMatch(init.stderr, /ENOENT|unexpected/)
  const listed = await sh('exp', ['scenarios', 'list', '--json'], {cwd: repo, env})
  t.equal((JSON.parse(listed.stdout) as {scenarios: unknown[]}).scenarios.length, COUNT.all, `all ${COUNT.all} scenarios, the held-out ones sealed with the key init made`)
  t.equal((await git(repo, 'status', '--porcelain')).trim(), '', 'committed')
  const demoDir = path.join(work, 'demo')
  const demo = await sh('exp', ['demo', '--dir', demoDir, '-n', '1'], {cwd: work, env})
  t.equal(demo.code, 0, demo.stderr)
  t.ok(fs.existsSync(path.join(demoDir, 'results', 'report.html')))
  const page = await sh('git', ['exp', '--help'], {cwd: repo, env})
  t.equal(page.code, 0, page.stderr)
  t.match(page.stdout, /GIT-EXP\(1\)/, 'npm installed the manual page git exp --help opens')
})

t.test("the workflow of exp ci init: lints clean, and its steps pass here against the tarball", async t => {
  const origin = path.join(work, 'origin.git')
  await git(work, '-c', 'init.defaultBranch=master', 'init', '-q', '--bare', origin)
  const maint = path.join(work, 'maint')
  await git(work, 'clone', '-q', origin, maint)
  const prefix = path.join(work, 'prefix')
  const env0 = {PATH: `${path.join(prefix, 'bin')}:${process.env.PATH}`}
  const exp = (args: string[], cwd = maint, input?: string) => sh('bash', ['-c', `${input ? `printf '%s' '${input}' | ` : ''}exp "$@"`, 'exp', ...args], {cwd, env: env0})
  t.equal((await exp(['init', '--example', 'onboarding'])).code, 0)
  // (the default: the installed exp packs itself into .github/exp/, and the job installs the base's copy)
  const ci = await exp(['ci', 'init'])
  t.equal(ci.code, 0, ci.stderr)
  const vendored = '.github/exp/experience-compiler-0.1.0.tgz'
  t.ok(fs.statSync(path.join(maint, vendored)).size > 100_000, 'the packed exp is written beside the workflow')
  const repacked = await sh('tar', ['xzf', path.join(maint, vendored), '-O', 'package/package.json'], {cwd: work})
  t.notOk('prepare' in (JSON.parse(repacked.stdout) as {scripts: Record<string, string>}).scripts, 'with no script that builds from sources')
  t.same(fs.readFileSync(path.join(maint, vendored)), fs.readFileSync(tarball), 'an installed exp packs itself to the bytes it was installed from (one npm pack of its folder)')
  const file = path.join(maint, '.github', 'workflows', 'exp-gate.yml')
  const lint = await sh(path.join(ROOT, 'node_modules', '.bin', 'action-validator'), [file], {cwd: maint})
  t.equal(lint.code, 0, `action-validator: ${lint.stdout}${lint.stderr}`)
  const text = fs.readFileSync(file, 'utf8')
  t.match(text, /branches: \["master"\]/, 'every pull request to the main branch, whatever it is called')
  t.notMatch(text, /paths:/, 'no path filter: the gate decides what is in scope')
  t.notMatch(text, /\|\| true/, 'a failed fetch fails')
  t.notMatch(text, /uses: [^@\s]+@(?![0-9a-f]{40} # v\d)/, 'every action pinned by a full commit id, the tag in a comment')
  t.match(text, /EXP_HOLDOUT_KEY: \$\{\{ secrets\.EXP_HOLDOUT_KEY \}\}/)
  t.match(text, /exp gate .*--require-certified/, 'a gate without the key (a fork) fails instead of passing uncertified')
  await git(maint, 'add', '.github')
  await git(maint, 'commit', '-q', '-m', 'ci: the exp gate')
  await git(maint, 'push', '-q', 'origin', 'master')
  t.equal((await exp(['append', 'note', '-', '--lane', 'maint'], maint, 'text: a lane to fetch')).code, 0)
  t.equal((await exp(['sync', 'origin'])).code, 0)

  // a pull request that only rewords the skill: not better, not worse
  await git(maint, 'switch', '-q', '-c', 'reword')
  const skill = path.join(maint, 'skills/onboarding/SKILL.md')
  fs.writeFileSync(skill, fs.readFileSync(skill, 'utf8').replace('and keep IT records up to date.', 'and keep the IT records up to date.'))
  await git(maint, 'commit', '-q', '-am', 'reword the objective')
  await git(maint, 'push', '-q', 'origin', 'reword')
  const headSha = (await git(maint, 'rev-parse', 'HEAD')).trim()

  // what actions/checkout leaves: the pull request merged into its base, detached
  const checkout = async (dir: string) => {
    await git(work, 'clone', '-q', origin, dir)
    await git(dir, 'checkout', '-q', '--detach', 'origin/master')
    await git(dir, 'merge', '-q', '--no-ff', '--no-edit', 'origin/reword')
  }
  const ws = path.join(work, 'ws')
  await checkout(ws)
  const fakeBin = path.join(work, 'fake-bin')
  fs.mkdirSync(fakeBin)
  fs.writeFileSync(path.join(fakeBin, 'gh'), `#!/bin/sh\nexec '${process.execPath}' '${path.join(ROOT, 'test/fixtures/github/gh.mjs')}' "$@"\n`, {mode: 0o755})
  const state = path.join(work, 'github.json')
  // (a comment someone wrote ahead of the bot, beginning with its marker: not the bot's to update)
  fs.writeFileSync(state, JSON.stringify({next: 100, reviews: [], comments: [{id: 1, pr: 7, body: `${COMMENT_MARKER}\n## exp gate: PASS`, user: {login: 'mallory'}}], permissions: {alice: 'write', bob: 'admin', dave: 'read', mallory: 'none', carol: 'admin'}}))
  // the runner's npm installs into the prefix installed above: the step really runs, the dependencies are there already
  const runner = prefix
  const env = {...ENV, PATH: `${path.join(runner, 'bin')}:${fakeBin}:${process.env.PATH}`, npm_config_prefix: runner, GITHUB_REPOSITORY: 'acme/research', GITHUB_STEP_SUMMARY: path.join(work, 'summary.md'), FAKE_GH_STATE: state, EXP_LANE: ''}
  const context = (event: 'pull_request' | 'pull_request_review') => ({
    'github.event_name': event,
    'github.event.review.state': event === 'pull_request_review' ? 'approved' : '',
    'github.event.pull_request.number': '7',
    'github.event.pull_request.base.ref': 'master',
    'github.event.pull_request.head.sha': headSha,
    'github.event.pull_request.head.repo.full_name': 'acme/research',
    'github.repository': 'acme/research',
    'github.token': 'fake-token',
    // (the repository secret: the workflow's gate requires certification, --require-certified)
    'secrets.EXP_HOLDOUT_KEY': fs.readFileSync(path.join(maint, '.git', 'exp', 'holdout.key'), 'utf8').trim(),
  })
  const actions = {
    'actions/checkout': (s: {with?: Record<string, unknown>}) => void t.equal(s.with?.['fetch-depth'], 0, 'full history for the merge base'),
    'actions/setup-node': (s: {with?: Record<string, unknown>}) => void t.ok(Number(s.with?.['node-version']) >= 26, 'the Active LTS line (26 since 2026-10-28)'),
    'actions/upload-artifact': (s: {with?: Record<string, unknown>}) => void t.ok(fs.existsSync(path.join(ws, String(s.with?.path))), 'the JUnit report is there to upload'),
  }
  const all = () => (JSON.parse(fs.readFileSync(state, 'utf8')) as {comments: {body: string; updated?: number; user: {login: string}}[]}).comments
  const comments = () => all().filter(c => c.user.login === 'github-actions[bot]')

  const first = await runJob(file, 'gate', {workspace: ws, context: context('pull_request'), env, actions})
  const step = (name: string, run = first) => run.steps.find(s => s.name.startsWith(name))!
  t.equal(step('install exp').code, 0, `install: ${step('install exp').stderr}`)
  const installed = await sh(path.join(runner, 'bin', 'exp'), ['--version'], {cwd: work})
  t.match(installed.stdout, /experience-compiler\/0\.1\.0/, 'the base\'s packed copy installed, and it runs')
  t.equal(step('fetch the research lanes').code, 0, step('fetch the research lanes').stderr)
  t.ok((await git(ws, 'for-each-ref', 'refs/research/lanes')).includes('refs/research/lanes/maint'), 'the lanes were fetched')
  t.equal(step('gate').code, 6, `a rewording without review fails the policy: ${step('gate').stderr}`)
  t.match(step('gate').stderr, /needs > 0\.0; not worse: an approving review would accept it/)
  t.notOk(first.ok)
  const xml = fs.readFileSync(path.join(ws, 'exp-gate.xml'), 'utf8')
  // not better: neither the success margin nor the test of improvement passes, and both say an approval would do
  t.match(xml, /<testsuites name="exp gate" tests="\d+" failures="2"/)
  t.match(xml, /<testcase classname="exp\.gate\.onboarding" name="success improves">\s*<failure /)
  t.match(xml, /<testcase classname="exp\.gate\.onboarding" name="mcnemar_p_max">\s*<failure [^>]*an approving review would waive it/)
  t.ok(step('upload the JUnit report').ran, 'uploaded even though the gate failed')
  t.equal(comments().length, 1, 'one comment')
  t.ok(comments()[0]!.body.startsWith(COMMENT_MARKER))
  t.match(comments()[0]!.body, /## exp gate: FAIL/)
  t.same(all()[0], {id: 1, pr: 7, body: `${COMMENT_MARKER}\n## exp gate: PASS`, user: {login: 'mallory'}}, "a comment of someone else's that begins with the marker is left as it was")

  // a maintainer approves this head; a stale approval and an outsider's do not count
  const st = JSON.parse(fs.readFileSync(state, 'utf8')) as {reviews: unknown[]}
  // (dave is a member of the owning organisation who may only read this repository; eve's permission cannot be read)
  st.reviews.push({pr: 7, state: 'APPROVED', commit_id: 'f'.repeat(40), author_association: 'MEMBER', user: {login: 'bob'}}, {pr: 7, state: 'APPROVED', commit_id: headSha, author_association: 'NONE', user: {login: 'mallory'}}, {pr: 7, state: 'APPROVED', commit_id: headSha, author_association: 'MEMBER', user: {login: 'alice'}}, {pr: 7, state: 'APPROVED', commit_id: headSha, author_association: 'MEMBER', user: {login: 'dave'}}, {pr: 7, state: 'APPROVED', commit_id: headSha, author_association: 'COLLABORATOR', user: {login: 'eve'}}, {pr: 8, state: 'APPROVED', commit_id: headSha, author_association: 'OWNER', user: {login: 'carol'}})
  fs.writeFileSync(state, JSON.stringify(st))
  // every step again but the install: the first run installed this tarball into this runner's
  // prefix (its step passed above), and a second npm install of it is ~17 s of CPU that
  // tests npm, not exp
  const again = first.steps.map(s => s.name).filter(n => n !== 'install exp')
  t.equal(again.length, first.steps.length - 1, 'the install step is there to leave out')
  const second = await runJob(file, 'gate', {workspace: ws, context: context('pull_request_review'), env, actions, only: again})
  t.ok(second.ran)
  t.notOk(step('install exp', second).ran)
  t.ok(second.ok, second.steps.map(s => `${s.name}: ${s.code} ${s.stderr}`).join('\n'))
  t.match(step('gate', second).stdout, /success improves: .*approved by alice/)
  t.equal(comments().length, 1, 'the same comment, updated, not a second one')
  t.equal(comments()[0]!.updated, 1)
  t.match(comments()[0]!.body, /## exp gate: PASS/)
  t.match(comments()[0]!.body, /Approved by @alice/)
  t.equal(all().length, 2)

  // a review that does not approve runs the gate too (found by a sweep: its job, skipped by a
  // condition, was a passing "gate" check, and it had cancelled the running gate): the
  // approvals are what the API says of this head, whatever event started the job
  const commented = await runJob(file, 'gate', {workspace: ws, context: {...context('pull_request_review'), 'github.event.review.state': 'commented'}, env, actions, only: again})
  t.ok(commented.ran, 'the job runs')
  t.ok(step('gate', commented).ran, 'and the gate decides')
  t.match(step('gate', commented).stdout, /approved by alice/)

  // found by a sweep: an approval its reviewer withdrew ("request changes" on the same head)
  // still counted, and logins were split and glob-expanded by the shell (renovate[bot] matched
  // a file renovateb, whose permission was then asked)
  const st2 = JSON.parse(fs.readFileSync(state, 'utf8')) as {reviews: unknown[]; permissions: Record<string, string>}
  st2.reviews.push({pr: 7, state: 'COMMENTED', commit_id: headSha, user: {login: 'alice'}}, {pr: 7, state: 'CHANGES_REQUESTED', commit_id: headSha, user: {login: 'alice'}}, {pr: 7, state: 'APPROVED', commit_id: headSha, user: {login: 'renovate[bot]'}})
  st2.permissions.renovateb = 'admin'
  fs.writeFileSync(state, JSON.stringify(st2))
  fs.writeFileSync(path.join(ws, 'renovateb'), '')
  const withdrawn = await runJob(file, 'gate', {workspace: ws, context: context('pull_request_review'), env, actions, only: ['find an approving review of this head']})
  t.match(step('find an approving review', withdrawn).stdout, /by someone who may write: none/, 'alice withdrew hers; renovate[bot] is no writer')
  t.notMatch(fs.readFileSync(`${state}.log`, 'utf8'), /collaborators\/renovateb\//, 'no login made of a file name')
  // a comment after an approval leaves it standing
  st2.reviews.push({pr: 7, state: 'APPROVED', commit_id: headSha, user: {login: 'bob'}}, {pr: 7, state: 'COMMENTED', commit_id: headSha, user: {login: 'bob'}})
  fs.writeFileSync(state, JSON.stringify(st2))
  const standing = await runJob(file, 'gate', {workspace: ws, context: context('pull_request_review'), env, actions, only: ['find an approving review of this head']})
  t.match(step('find an approving review', standing).stdout, /by someone who may write: bob/)
  // an approval of another head than the one HEAD merges (a push after the review) does not count
  st2.reviews.push({pr: 7, state: 'APPROVED', commit_id: 'e'.repeat(40), user: {login: 'bob'}})
  fs.writeFileSync(state, JSON.stringify(st2))
  const other = await runJob(file, 'gate', {workspace: ws, context: {...context('pull_request_review'), 'github.event.pull_request.head.sha': 'e'.repeat(40)}, env, actions, only: ['find an approving review of this head']})
  t.match(step('find an approving review', other).stdout, /HEAD is not the merge of e{40}: its approval does not count/)
  t.match(step('find an approving review', other).stdout, /by someone who may write: none/)

  // a fetch that fails stops the job before the gate
  const broken = path.join(work, 'ws-broken')
  await checkout(broken)
  await git(broken, 'remote', 'set-url', 'origin', path.join(work, 'gone.git'))
  const failed = await runJob(file, 'gate', {workspace: broken, context: context('pull_request'), env, actions, only: ['fetch the research lanes', 'gate']})
  t.not(step('fetch the research lanes', failed).code, 0)
  t.notOk(step('gate', failed).ran, 'the gate does not run on a failed fetch')
})

t.test('the packed exp is installed from the base branch: a pull request that replaces it does not choose the exp that judges it', async t => {
  // found by a sweep: with --install ./vendor/exp.tgz the job installed the pull request's
  // file, and a fake exp in it printed PASS and passed a lowered policy
  const repo = path.join(work, 'vendor')
  await git(work, '-c', 'init.defaultBranch=master', 'init', '-q', repo)
  const env = {PATH: `${path.join(work, 'prefix', 'bin')}:${process.env.PATH}`}
  t.equal((await sh('exp', ['init'], {cwd: repo, env})).code, 0)
  for (const bad of ['./vendor/exp.tgz', 'vendor/exp.tgz', 'file:vendor/exp.tgz', `file:${path.join(repo, 'x.tgz')}`, path.join(repo, 'vendor', 'exp.tgz'), '../exp.tgz', 'experience-compiler@./x', 'e@file:x', 'C:x.tgz', 'C:\\x\\y.tgz', `git+file://${repo}`, 'link:../x', '~/x.tgz']) {
    const r = await sh('exp', ['ci', 'init', '--install', bad, '--force'], {cwd: repo, env})
    t.equal(r.code, 2, `refused: ${bad}`)
    t.match(r.stderr, /npm would read it as a path/)
  }
  t.notOk(fs.existsSync(path.join(repo, '.github')), 'nothing written')
  t.equal((await sh('exp', ['ci', 'init'], {cwd: repo, env})).code, 0)
  const vendored = '.github/exp/experience-compiler-0.1.0.tgz'
  await git(repo, 'add', '.github')
  await git(repo, 'commit', '-q', '-m', 'ci: the exp gate')
  await git(repo, 'update-ref', 'refs/remotes/origin/master', 'HEAD')
  // the pull request's checkout holds another "exp"
  await git(repo, 'switch', '-q', '-c', 'evil')
  fs.writeFileSync(path.join(repo, vendored), 'a fake exp that prints PASS')
  await git(repo, 'commit', '-q', '-am', 'a better exp')
  const fake = path.join(work, 'fake-npm-vendor')
  fs.mkdirSync(fake)
  const got = path.join(work, 'npm-got.tgz')
  fs.writeFileSync(path.join(fake, 'npm'), `#!/usr/bin/env node\nrequire('fs').copyFileSync(process.argv.at(-1), ${JSON.stringify(got)})\n`, {mode: 0o755})
  const file = path.join(repo, '.github', 'workflows', 'exp-gate.yml')
  const run = await runJob(file, 'gate', {workspace: repo, context: {'github.event_name': 'pull_request', 'github.event.review.state': '', 'github.event.pull_request.base.ref': 'master'}, env: {...ENV, PATH: `${fake}:${process.env.PATH}`}, actions: {}, only: ['install exp']})
  t.equal(run.steps.find(s => s.name === 'install exp')!.code, 0, run.steps.find(s => s.name === 'install exp')!.stderr)
  t.same(fs.readFileSync(got), await gitBytes(repo, ['show', `master:${vendored}`]), "npm was handed the base's copy, byte for byte")
})

/** git's stdout as bytes */
function gitBytes(cwd: string, args: string[]): Promise<Buffer> {
  return new Promise((resolve, reject) => execFile(...plain('git', args), {cwd, env: ENV, encoding: 'buffer', maxBuffer: 64 * 1024 * 1024}, (e, out) => (e ? reject(e) : resolve(out))))
}

t.test('--install is passed as data: a shell expression in it is never run', async t => {
  const repo = path.join(work, 'inject')
  await git(work, '-c', 'init.defaultBranch=master', 'init', '-q', repo)
  const env = {PATH: `${path.join(work, 'prefix', 'bin')}:${process.env.PATH}`}
  t.equal((await sh('exp', ['init'], {cwd: repo, env})).code, 0)
  const tricky = 'github:acme/exp#x$(touch${IFS}pwned)`touch${IFS}pwned2`'
  t.equal((await sh('exp', ['ci', 'init', '--install', tricky], {cwd: repo, env})).code, 0)
  const file = path.join(repo, '.github', 'workflows', 'exp-gate.yml')
  // npm as a recorder of its arguments: the spec must reach it as one literal word
  const fake = path.join(work, 'fake-npm')
  fs.mkdirSync(fake)
  const argv = path.join(work, 'npm-argv.json')
  fs.writeFileSync(path.join(fake, 'npm'), `#!/usr/bin/env node\nrequire('fs').writeFileSync(${JSON.stringify(argv)}, JSON.stringify(process.argv.slice(2)))\n`, {mode: 0o755})
  const run = await runJob(file, 'gate', {workspace: repo, context: {'github.event_name': 'pull_request', 'github.event.review.state': '', 'github.event.pull_request.base.ref': 'master'}, env: {...ENV, PATH: `${fake}:${process.env.PATH}`}, actions: {}, only: ['install exp']})
  t.equal(run.steps.find(s => s.name === 'install exp')!.code, 0)
  t.same(JSON.parse(fs.readFileSync(argv, 'utf8')), ['install', '--global', '--no-audit', '--no-fund', tricky], 'the spec is one literal argument')
  t.notOk(fs.existsSync(path.join(repo, 'pwned')) || fs.existsSync(path.join(repo, 'pwned2')), 'nothing in it ran')
  for (const bad of ['a b', 'x${{ github.token }}', '--registry=http://evil', 'a\nb']) {
    const r = await sh('exp', ['ci', 'init', '--install', bad, '--force'], {cwd: repo, env})
    t.equal(r.code, 2, `refused: ${JSON.stringify(bad)}`)
  }
})
