import t, {type Test} from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp, expJson} from '../helpers/cli.js'
import {git, tempDir} from '../helpers/repo.js'
import {exampleRepo} from '../helpers/evolve.js'
import {GitRecordStore} from '../../src/store/index.js'
import {sampleDraft} from '../helpers/records.js'

/** Every field of .research/config.yaml is either read by the commands or refused by name. */

/**
 * A repository where `exp init --example onboarding` ran on main: a copy of one made once per
 * version of the code and data (test/helpers/evolve.ts), not an `exp init` per test.
 */
const initRepo = (t: Test): Promise<string> => exampleRepo(t)

const researchRefs = async (repo: string) => (await git(repo, 'for-each-ref', 'refs/research')).trim()

t.test('a committed lane is refused by name: every clone would write that one lane', async t => {
  const repo = await initRepo(t)
  t.notMatch(fs.readFileSync(path.join(repo, '.research/config.yaml'), 'utf8'), /^#? ?lane:/m, 'exp init offers no lane field')
  fs.appendFileSync(path.join(repo, '.research/config.yaml'), 'lane: alice\n')
  for (const [args, input] of [[['append', 'note', '-'], 'text: x'], [['claim', 'hy-0123456789abcdef01234567']], [['mine']]] as [string[], string?][]) {
    const r = await exp(args, {cwd: repo, ...(input ? {input} : {})})
    t.equal(r.code, 2, `exp ${args.join(' ')}: ${r.stderr}`)
    t.match(r.stderr, /error: \.research\/config\.yaml: lane is not taken from a file in the repository/)
    t.match(r.stderr, /git config exp\.lane/, 'with where a lane is set instead')
  }
  t.equal(await researchRefs(repo), '', 'nothing was written, to alice or anywhere')
})

t.test('remote of the config is the remote `exp sync` uses, after git config exp.remote; never a URL or path', async t => {
  const repo = await initRepo(t)
  const up = tempDir(t)
  await git(up, 'init', '-q', '--bare')
  await git(repo, 'remote', 'add', 'upstream', up)
  const cfg = path.join(repo, '.research/config.yaml')
  const text = fs.readFileSync(cfg, 'utf8')
  t.match(text, /^remote: origin$/m)
  fs.writeFileSync(cfg, text.replace(/^remote: origin$/m, 'remote: upstream'))
  t.equal((await exp(['append', 'note', '-'], {cwd: repo, input: 'text: x'})).code, 0)
  const r = await exp(['sync', '--json'], {cwd: repo})
  t.equal(r.code, 0, r.stderr)
  t.equal((JSON.parse(r.stdout) as {remote: string}).remote, 'upstream', 'no origin here: the config names upstream')
  t.match(await git(up, 'for-each-ref', 'refs/research'), /refs\/research\/lanes\//, 'the lane was pushed there')
  // a path in the committed file is not followed
  fs.writeFileSync(cfg, text.replace(/^remote: origin$/m, `remote: ${up}`))
  const p = await exp(['sync'], {cwd: repo})
  t.equal(p.code, 3)
  t.match(p.stderr, /unknown remote: .* \(remote of \.research\/config\.yaml\)/)
  t.match(p.stderr, /never a URL or a path/)
  // (a name git would take for an option is not offered back as one to add)
  fs.writeFileSync(cfg, text.replace(/^remote: origin$/m, 'remote: -o'))
  const o = await exp(['sync'], {cwd: repo})
  t.equal(o.code, 3)
  t.match(o.stderr, /git remote add NAME URL/)
  // the clone's own git config comes first
  await git(repo, 'config', 'exp.remote', 'upstream')
  t.equal((await exp(['sync'], {cwd: repo})).code, 0)
})

t.test('a moved skills folder is refused by name by every command, the ones that read skills/ only as well', async t => {
  const repo = await initRepo(t)
  const cfg = path.join(repo, '.research/config.yaml')
  t.notMatch(fs.readFileSync(cfg, 'utf8'), /^skills:/m, 'exp init no longer offers the field')
  // what earlier exp init wrote still reads
  fs.appendFileSync(cfg, 'skills: skills\n')
  t.equal((await exp(['skills', 'lint'], {cwd: repo})).code, 0)
  await git(repo, 'mv', 'skills', 'sk')
  fs.writeFileSync(cfg, fs.readFileSync(cfg, 'utf8').replace(/^skills: skills$/m, 'skills: sk'))
  await git(repo, 'commit', '-qam', 'mv')
  for (const args of [['run', 'train'], ['skills', 'lint'], ['propose', 'onboarding'], ['provenance', 'onboarding'], ['blame', 'onboarding'], ['evolve', '--iterations', '1'], ['ablate', 'onboarding']]) {
    const r = await exp(args, {cwd: repo})
    t.equal(r.code, 2, `exp ${args.join(' ')}: ${r.stderr}`)
    t.match(r.stderr, /error: \.research\/config\.yaml: skills is "sk", but exp reads skills only from skills\//, `exp ${args.join(' ')} names the field`)
    t.notMatch(r.stderr, /has no skills yet/)
  }
  t.equal(await researchRefs(repo), '', 'nothing was recorded')
})

t.test('a config that is a link out of the work tree, empty, or invalid is refused naming the file (and the line)', async t => {
  const repo = await initRepo(t)
  const cfg = path.join(repo, '.research/config.yaml')
  const good = fs.readFileSync(cfg, 'utf8')
  const outside = path.join(tempDir(t), 'secret.yaml')
  fs.writeFileSync(outside, 'version: 1\nseed: 7\n')
  const cases: [string, () => void, RegExp][] = [
    ['a link out of the work tree', () => (fs.rmSync(cfg), fs.symlinkSync(outside, cfg)), /^error: \.research\/config\.yaml is a symbolic link to .*secret\.yaml, outside the work tree/m],
    ['a link to /etc/passwd', () => (fs.rmSync(cfg), fs.symlinkSync('/etc/passwd', cfg)), /^error: \.research\/config\.yaml is a symbolic link to \/etc\/passwd, outside the work tree/m],
    ['an empty file', () => (fs.rmSync(cfg), fs.writeFileSync(cfg, '')), /^error: \.research\/config\.yaml is empty$/m],
    ['a value out of range', () => fs.writeFileSync(cfg, 'version: 1\nseed: 42\nrun:\n  repeat: 0\n'), /^error: \.research\/config\.yaml:4 is invalid: run\.repeat must be >= 1$/m],
    ['a field that is not allowed', () => fs.writeFileSync(cfg, 'version: 1\n\nbogus: 1\n'), /^error: \.research\/config\.yaml:3 is invalid: bogus is not an allowed field$/m],
    ['an unknown agent', () => fs.writeFileSync(cfg, 'version: 1\nagent: bogus\n'), /^error: \.research\/config\.yaml: agent: unknown agent: "bogus"/m],
  ]
  for (const [what, make, said] of cases) {
    make()
    const r = await exp(['run', 'train'], {cwd: repo})
    t.equal(r.code, 2, `${what}: ${r.stderr}`)
    t.match(r.stderr, said, what)
    t.notMatch(r.stderr, /root:|\(root\) must be object/, `${what}: nothing of the file outside is quoted`)
  }
  t.equal(await researchRefs(repo), '', 'nothing was recorded')
  // a link inside the work tree reads as the file it points at
  fs.rmSync(cfg)
  fs.writeFileSync(path.join(repo, 'config.yaml'), good)
  fs.symlinkSync('../config.yaml', cfg)
  const r = await exp(['scenarios', 'list', '--json'], {cwd: repo})
  t.equal(r.code, 0, r.stderr)
})

t.test('a config that does not parse stops every command that writes to a lane (mine too), before it writes; store views carry on', async t => {
  const repo = await initRepo(t)
  const note = await exp(['append', 'note', '-'], {cwd: repo, input: 'text: x'})
  t.equal(note.code, 0, note.stderr)
  t.equal((await exp(['run', 'train'], {cwd: repo})).code, 0, 'traces for mine to mine')
  const before = await researchRefs(repo)
  fs.writeFileSync(path.join(repo, '.research/config.yaml'), 'version: 1\nseed: [42\n')
  const refused: [string[], string?][] = [[['mine']], [['append', 'note', '-'], 'text: y'], [['claim', 'hy-0123456789abcdef01234567']], [['release', 'hy-0123456789abcdef01234567']], [['retire', 'hy-0123456789abcdef01234567', '--reason', 'r']], [['propose', 'onboarding']], [['run', 'train']], [['fsck']], [['frontier']], [['hypotheses']]]
  for (const [args, input] of refused) {
    const r = await exp(args, {cwd: repo, ...(input ? {input} : {})})
    t.equal(r.code, 2, `exp ${args.join(' ')}: ${r.stderr}`)
    t.match(r.stderr, /^error: \.research\/config\.yaml:3:1: /m, `exp ${args.join(' ')} names the file and line`)
  }
  t.equal(await researchRefs(repo), before, 'nothing was written (mine wrote its knowledge past the config before)')
  // views of the store alone do not read the config
  for (const args of [['ledger'], ['lanes'], ['inspect', note.stdout.trim()]]) {
    const r = await exp(args, {cwd: repo})
    t.equal(r.code, 0, `exp ${args.join(' ')}: ${r.stderr}`)
  }
})

// Found by a sweep: `claims.ttl_seconds`, which exp init writes, was never read.
t.test('claims.ttl_seconds is how long a claim holds where no --ttl says; out of range it is refused', async t => {
  const repo = await initRepo(t)
  const s = await GitRecordStore.open(repo)
  const hyp = (await s.append(sampleDraft('hypothesis', 1), {lane: 'seed'})).id
  await s.close()
  const cfg = path.join(repo, '.research/config.yaml')
  const text = fs.readFileSync(cfg, 'utf8')
  t.match(text, /^ {2}ttl_seconds: 3600$/m)
  fs.writeFileSync(cfg, text.replace(/^ {2}ttl_seconds: 3600$/m, '  ttl_seconds: 120'))
  const before = Date.now()
  const c = await expJson<{expires_at: string}>(['claim', hyp, '--lane', 'a'], {cwd: repo})
  const left = (Date.parse(c.expires_at) - before) / 1000
  t.ok(left > 100 && left <= 130, `the claim holds 120 s, not 3600 (${left} s)`)
  const flag = await expJson<{expires_at: string}>(['claim', hyp, '--lane', 'a', '--ttl', '900'], {cwd: repo})
  t.ok(Date.parse(flag.expires_at) - before > 800_000, '--ttl still wins')
  fs.writeFileSync(cfg, text.replace(/^ {2}ttl_seconds: 3600$/m, '  ttl_seconds: 99999999999'))
  const r = await exp(['claim', hyp, '--lane', 'b'], {cwd: repo})
  t.equal(r.code, 2, r.stderr)
  t.match(r.stderr, /\.research\/config\.yaml:\d+ is invalid: claims\.ttl_seconds must be <= 31622400/)
})
