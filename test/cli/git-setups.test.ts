import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp, expJson} from '../helpers/cli.js'
import {git, tempDir} from '../helpers/repo.js'

t.test('a repository of SHA-256 object names is refused before anything is read or written', async t => {
  const dir = tempDir(t)
  await git(dir, 'init', '-q', '--object-format=sha256', '-b', 'master')
  const cases: [string[], string?][] = [
    [['append', 'note', '-', '--lane', 'x'], 'text: hi'],
    [['ledger']],
    [['init', '--example', 'onboarding']],
    [['fsck']],
    [['lanes', '--json']],
  ]
  for (const [args, input] of cases) {
    const r = await exp(args, {cwd: dir, ...(input ? {input} : {})})
    t.equal(r.code, 3, `exp ${args.join(' ')}: ${r.stderr}`)
    t.match(r.stderr, /exp cannot work in the repository at .*: its objects are named by sha256 \(extensions\.objectFormat\)/)
    t.match(r.stderr, /hint: .*git init --object-format=sha1/)
  }
  t.equal((await git(dir, 'for-each-ref')).trim(), '', 'no ref was written')
  t.notOk(fs.existsSync(path.join(dir, '.git', 'exp')), 'nor anything under .git/exp')
  t.equal((await git(dir, 'status', '--porcelain')).trim(), '', 'nor into the work tree')
  // refs in a reftable (git 2.45+ makes these; this git may not): the same, by the configuration
  const rt = tempDir(t)
  await git(rt, 'init', '-q', '-b', 'master')
  await git(rt, 'config', 'core.repositoryformatversion', '1')
  await git(rt, 'config', 'extensions.refStorage', 'reftable').catch(() => undefined)
  const r = await exp(['append', 'note', '-', '--lane', 'x'], {cwd: rt, input: 'text: hi'})
  t.equal(r.code, 3, r.stderr)
  t.match(r.stderr, /its refs are stored as reftable \(extensions\.refStorage\)/)
  t.match(r.stderr, /git refs migrate --ref-format=files/)
})

t.test('exp demo makes a SHA-1 repository even where git makes SHA-256 ones by default', async t => {
  const home = tempDir(t)
  fs.writeFileSync(path.join(home, '.gitconfig'), '[init]\n\tdefaultObjectFormat = sha256\n[user]\n\tname = a\n\temail = a@b.invalid\n')
  const dir = path.join(tempDir(t), 'demo')
  const r = await expJson<{evolve: {iterations: unknown[]}}>(['demo', '--dir', dir, '-n', '1'], {cwd: home, env: {HOME: home, XDG_CONFIG_HOME: path.join(home, '.config')}})
  t.equal(r.evolve.iterations.length, 1)
  t.equal((await git(dir, 'rev-parse', '--show-object-format')).trim(), 'sha1')
})

t.test("exp init in a repository whose hooks or signing refuse the commit: git's words, nothing left behind, --no-verify", async t => {
  const home = tempDir(t)
  const hooks = path.join(home, 'hooks')
  fs.mkdirSync(hooks)
  fs.writeFileSync(path.join(hooks, 'pre-commit'), '#!/bin/sh\necho "pre-commit: lint failed on 3 files" >&2\nexit 1\n', {mode: 0o755})
  fs.writeFileSync(path.join(home, '.gitconfig'), `[user]\n\tname = a\n\temail = a@b.invalid\n[core]\n\thooksPath = ${hooks}\n`)
  const env = {HOME: home, XDG_CONFIG_HOME: path.join(home, '.config')}
  const dir = path.join(home, 'repo')
  fs.mkdirSync(dir)
  await git(dir, 'init', '-q', '-b', 'master')
  const r = await exp(['init', '--example', 'onboarding'], {cwd: dir, env})
  t.equal(r.code, 1)
  t.match(r.stderr, /error: git commit of the onboarding example failed \(exit 1\): pre-commit: lint failed on 3 files/)
  t.match(r.stderr, /hint: a hook .* or commit signing refused exp's commit, and what this run created was removed again: .* add --no-verify/)
  t.notMatch(r.stderr, /unexpected/)
  t.same(fs.readdirSync(dir), ['.git'], 'nothing is left in the work tree')
  t.equal((await git(dir, 'status', '--porcelain')).trim(), '', 'nor in the index')
  // signing that cannot sign: git's own words
  fs.writeFileSync(path.join(home, '.gitconfig'), `[user]\n\tname = a\n\temail = a@b.invalid\n[core]\n\thooksPath = ${hooks}\n[commit]\n\tgpgsign = true\n[gpg]\n\tprogram = false\n`)
  const s = await exp(['init', '--example', 'onboarding', '--no-verify'], {cwd: dir, env})
  t.equal(s.code, 1)
  t.match(s.stderr, /failed \(exit \d+\): .*gpg failed to sign/)
  // the hooks skipped, signing off again: the example is committed
  fs.writeFileSync(path.join(home, '.gitconfig'), `[user]\n\tname = a\n\temail = a@b.invalid\n[core]\n\thooksPath = ${hooks}\n`)
  const ok = await exp(['init', '--example', 'onboarding', '--no-verify'], {cwd: dir, env})
  t.equal(ok.code, 0, ok.stderr)
  t.match(await git(dir, 'log', '--format=%s'), /exp: add the onboarding example/)
})

t.test('exp init --example on a detached HEAD or another branch than main writes nothing and says where to go', async t => {
  const dir = tempDir(t)
  await git(dir, 'init', '-q', '-b', 'master')
  await git(dir, 'commit', '-q', '--allow-empty', '-m', 'init')
  await git(dir, 'checkout', '-q', '--detach')
  const r = await exp(['init', '--example', 'onboarding'], {cwd: dir})
  t.equal(r.code, 2)
  t.match(r.stderr, /error: --example commits onto the main branch, master, but HEAD is detached at [0-9a-f]{12}; nothing was written/)
  t.match(r.stderr, /hint: switch to it first \(`git switch master`\)/)
  t.same(fs.readdirSync(dir), ['.git'])
  await git(dir, 'checkout', '-q', '-b', 'dev')
  const d = await exp(['init', '--example', 'onboarding'], {cwd: dir})
  t.equal(d.code, 2)
  t.match(d.stderr, /the branch checked out is dev; .*\n.*or make dev the main branch with --main dev/)
  const ok = await exp(['init', '--example', 'onboarding', '--main', 'dev'], {cwd: dir})
  t.equal(ok.code, 0, ok.stderr)
  t.match(await git(dir, 'log', '-1', '--format=%s', 'dev'), /exp: add the onboarding example/)
})

// Found trying a new user's machine: a global excludes file that ignores *.yaml or .research/
// made `exp init --example` fail ("this is unexpected") or commit the example without its
// scenarios and config, so a clone (and CI) had no benchmark.
t.test("exp init --example commits every file it wrote, whatever the user's ignore rules say", async t => {
  const home = tempDir(t)
  fs.writeFileSync(path.join(home, 'ignore'), '*.yaml\n*.sealed\n.research/\n')
  fs.writeFileSync(path.join(home, '.gitconfig'), `[user]\n\tname = a\n\temail = a@b.invalid\n[core]\n\texcludesFile = ${path.join(home, 'ignore')}\n`)
  const env = {HOME: home, XDG_CONFIG_HOME: path.join(home, '.config')}
  for (const example of ['onboarding', 'tuning']) {
    const dir = path.join(home, example)
    fs.mkdirSync(dir)
    await git(dir, 'init', '-q', '-b', 'master')
    // an ignored file of the user's own in a folder exp writes to stays out of the commit
    fs.mkdirSync(path.join(dir, '.research'))
    fs.writeFileSync(path.join(dir, '.research', 'notes.yaml'), 'mine: true\n')
    const r = await exp(['init', '--example', example], {cwd: dir, env})
    t.equal(r.code, 0, r.stderr)
    const files = (await git(dir, 'ls-tree', '-r', '--name-only', 'HEAD')).trim().split('\n')
    t.ok(files.includes('.research/config.yaml') && files.includes('.research/policy.yaml'), `${example}: the config and the policy are committed`)
    if (example === 'onboarding') {
      t.ok(files.filter(f => /^scenarios\/.*\.yaml$/.test(f)).length > 50, 'every scenario file is committed')
      t.ok(files.includes('scenarios/holdout.sealed'), 'and the sealed held-out split')
    } else t.ok(files.includes('.research/contracts/tuning.yaml') && files.includes('.research/contracts/tuning.private.sealed'), 'the contract and its sealed data are committed')
    t.notOk(files.includes('.research/notes.yaml'), "the user's own ignored file is not")
    t.equal((await git(dir, 'status', '--porcelain', '--untracked-files=no')).trim(), '', 'nothing exp wrote is left uncommitted')
  }
})

// Found trying a shared machine: git refuses a repository someone else owns ("dubious
// ownership": its .git/config could run their programs), and exp ran git in it all the same.
t.test('a repository someone else owns is refused, as git refuses it, unless safe.directory names it', {skip: process.getuid?.() !== 0 && 'needs root to give a folder to another user'}, async t => {
  const home = tempDir(t)
  fs.writeFileSync(path.join(home, '.gitconfig'), '[user]\n\tname = a\n\temail = a@b.invalid\n')
  const env = {HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), SUDO_UID: ''}
  const dir = path.join(tempDir(t), 'theirs')
  fs.mkdirSync(dir)
  await git(dir, 'init', '-q', '-b', 'master')
  // their configuration runs a program of theirs wherever git looks at the work tree
  await git(dir, 'config', 'core.fsmonitor', `touch ${path.join(home, 'pwned')}; false`)
  for (const f of [dir, ...fs.readdirSync(dir, {recursive: true}).map(f => path.join(dir, String(f)))]) fs.chownSync(f, 65534, 65534)
  for (const [args, input] of [[['append', 'note', '-'], 'text: hi'], [['ledger']], [['init', '--example', 'onboarding']]] as [string[], string?][]) {
    const r = await exp(args, {cwd: dir, env, ...(input ? {input} : {})})
    t.equal(r.code, 3, `exp ${args.join(' ')}: ${r.stderr}`)
    t.match(r.stderr, /exp cannot work in the repository at .*theirs: .* is owned by someone else \(uid 65534\), and git refuses to work in it/)
    t.match(r.stderr, /hint: .*git config --global --add safe\.directory .*theirs/)
  }
  t.notOk(fs.existsSync(path.join(dir, '.git', 'exp')), 'nothing was written')
  t.equal(fs.readdirSync(dir).join(','), '.git')
  t.notOk(fs.existsSync(path.join(home, 'pwned')))
  // named in safe.directory (or run through sudo by its owner): exp works there, like git
  const trusted = await exp(['append', 'note', '-'], {cwd: dir, input: 'text: hi', env: {...env, GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'safe.directory', GIT_CONFIG_VALUE_0: dir}})
  t.equal(trusted.code, 0, trusted.stderr)
  const sudo = await exp(['ledger'], {cwd: dir, env: {...env, SUDO_UID: '65534'}})
  t.equal(sudo.code, 0, sudo.stderr)
})

// Found by a new user: `exp demo --dir subdemo` run in a repository made a repository inside
// its work tree (the help says the demo never writes into the repository it starts from), and
// a demo stopped with Ctrl-C could not be finished: "D is not empty".
t.test('exp demo never makes its repository inside another; run again after a kill, it finishes the demo it began', async t => {
  const outer = tempDir(t)
  await git(outer, 'init', '-q')
  const inside = await exp(['demo', '--dir', 'sub', '-n', '1'], {cwd: outer})
  t.equal(inside.code, 2)
  t.match(inside.stderr, /sub is inside the work tree of the repository .*: exp demo makes a repository of its own/)
  t.notOk(fs.existsSync(path.join(outer, 'sub')), 'nothing made')
  // (found by a sweep: through a link to a folder of a work tree, or inside .git, it did; and a
  // file given as --dir was "unknown file or folder")
  fs.mkdirSync(path.join(outer, 'inner'))
  const links = tempDir(t)
  fs.symlinkSync(path.join(outer, 'inner'), path.join(links, 'link'))
  const bad: [string, RegExp][] = [
    [path.join(links, 'link'), /link is inside the work tree of the repository/],
    [path.join(outer, '.git', 'demo'), /\.git\/demo is inside the git directory of the repository/],
    [path.join(links, 'afile'), /afile is a file, not a folder/],
  ]
  fs.writeFileSync(path.join(links, 'afile'), '')
  for (const [d, why] of bad) {
    const r = await exp(['demo', '--dir', d, '-n', '1'], {cwd: links})
    t.equal(r.code, 2, r.stderr)
    t.match(r.stderr, why)
  }
  t.same(fs.readdirSync(path.join(outer, 'inner')), [], 'nothing made through the link')
  t.notOk(fs.existsSync(path.join(outer, '.git', 'demo')), 'nor in .git')
  const dir = path.join(tempDir(t), 'demo')
  const {spawn} = await import('node:child_process')
  const {BIN} = await import('../helpers/cli.js')
  const {GIT_ENV, node} = await import('../helpers/repo.js')
  const child = spawn(...node([BIN, 'demo', '--dir', dir, '-n', '2']), {env: GIT_ENV, stdio: ['ignore', 'pipe', 'pipe']})
  let out = ''
  await new Promise<void>(resolve => {
    child.stdout!.on('data', d => {
      out += d
      // killed once the first iteration is on screen: in the middle of the run
      if (/Iteration 1\b/.test(out) && !child.killed) {
        child.kill('SIGKILL')
        resolve()
      }
    })
    child.on('close', () => resolve())
  })
  const again = await exp(['demo', '--dir', dir, '-n', '2'], {cwd: outer})
  t.equal(again.code, 0, again.stderr)
  t.match(again.stdout, /finishing the demo in the repository/)
  t.ok(fs.existsSync(path.join(dir, 'results', 'report.html')), 'the report is written')
  const fsck = await exp(['fsck'], {cwd: dir})
  t.equal(fsck.code, 0, fsck.stdout + fsck.stderr)
})

// Found by a new user: exp read ~/.gitconfig and the repository's config itself, so an
// identity or `exp.lane` set through GIT_CONFIG_GLOBAL, an include file or `-c` was not seen:
// git authored the user's commits with one name, exp its record commits with another.
t.test('exp sees the git configuration git sees: GIT_CONFIG_GLOBAL, include files, GIT_CONFIG_COUNT', async t => {
  const home = tempDir(t)
  const cfg = path.join(home, 'elsewhere.gitconfig')
  fs.writeFileSync(path.join(home, '.gitconfig'), '[user]\n\tname = Not Used\n\temail = not@used.invalid\n')
  fs.writeFileSync(cfg, '[include]\n\tpath = identity.inc\n[exp]\n\tlane = from-global\n')
  fs.writeFileSync(path.join(home, 'identity.inc'), '[user]\n\tname = Included Name\n\temail = included@user.invalid\n')
  // (the tests' fixed identity in the environment taken away: the configuration gives it)
  const env = {HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), GIT_CONFIG_GLOBAL: cfg, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: undefined, GIT_AUTHOR_EMAIL: undefined, GIT_COMMITTER_NAME: undefined, GIT_COMMITTER_EMAIL: undefined}
  const dir = tempDir(t)
  await git(dir, 'init', '-q', '-b', 'master')
  const r = await exp(['append', 'note', '-'], {cwd: dir, input: 'text: hi', env})
  t.equal(r.code, 0, r.stderr)
  const author = (ref: string) => git(dir, 'log', '-1', '--format=%an <%ae>', ref)
  t.equal((await author('refs/research/lanes/from-global')).trim(), 'Included Name <included@user.invalid>', 'the lane and the identity of GIT_CONFIG_GLOBAL and its include')
  const c = await exp(['append', 'note', '-'], {cwd: dir, input: 'text: two', env: {...env, GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'exp.lane', GIT_CONFIG_VALUE_0: 'from-env'}})
  t.equal(c.code, 0, c.stderr)
  t.equal((await author('refs/research/lanes/from-env')).trim(), 'Included Name <included@user.invalid>', 'a setting given in the environment, as git takes it')
})
