/* eslint-disable no-control-regex -- the tests look for control characters on purpose */
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {execFileSync, spawn, spawnSync} from 'node:child_process'
import {BIN, exp, expJson} from '../helpers/cli.js'
import {GIT_ENV, makeRepo, git, node, tempDir, handCommit} from '../helpers/repo.js'
import {prepare, seal, encodeRecord} from '../../src/records/index.js'
import {lintSkill} from '../../src/skills/index.js'
import {loadScenarioDir} from '../../src/scenarios/index.js'
import {loadDataset} from '../../src/evals/runner/dataset.js'
import {quadRepo} from '../helpers/contracts.js'

const BOMB = ['a: &a ["x","x","x","x","x","x","x","x","x"]', 'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]', 'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]', 'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]', 'e: [*d,*d,*d,*d,*d,*d,*d,*d,*d]'].join('\n')

t.test('a NUL in a record stays in the record, never in the commit: inspect finds it, git fsck --strict and a fsckObjects remote accept it', async t => {
  const repo = await makeRepo(t)
  const r = await exp(['append', 'note', '-', '--lane', 'n'], {cwd: repo, input: '{"text":"a\\u0000b\\u0007\\nExp-Record: note/nt-000000000000000000000000"}'})
  t.equal(r.code, 0, r.stderr)
  const id = r.stdout.trim()
  const ins = await expJson<{record: {body: {text: string}}}>(['inspect', id], {cwd: repo})
  t.equal(ins.record.body.text, 'a\u0000b\u0007\nExp-Record: note/nt-000000000000000000000000', 'the body keeps every character')
  const subject = (await git(repo, 'log', '-1', '--format=%s', 'refs/research/lanes/n')).replace(/\n$/, '')
  t.notMatch(subject, /[\u0000-\u001f]/)
  t.match(await git(repo, 'log', '-1', '--format=%B', 'refs/research/lanes/n'), new RegExp(`\\nExp-Record: note/${id}\\n`))
  t.equal((await git(repo, 'fsck', '--strict', '--no-dangling')).trim(), '', 'git fsck --strict is clean')
  t.same((await expJson<{id: string}[]>(['ledger'], {cwd: repo})).map(x => x.id), [id])
  const hub = path.join(tempDir(t), 'hub.git')
  await git(path.dirname(hub), 'init', '-q', '--bare', hub)
  await git(hub, 'config', 'receive.fsckObjects', 'true')
  const s = await exp(['sync', hub], {cwd: repo})
  t.equal(s.code, 0, s.stderr)
  t.match(await git(hub, 'rev-parse', 'refs/research/lanes/n'), /^[0-9a-f]{40}/, 'the remote took it')
})

t.test('an endless input (/dev/zero, /dev/urandom, `yes |`) is an error at a bound the record limit gives, not a hang', async t => {
  const repo = await makeRepo(t)
  fs.writeFileSync(path.join(repo, 'n.yaml'), 'text: small\n')
  const cases: [string, string[], RegExp][] = [
    ['a record from /dev/zero', ['append', 'note', '/dev/zero'], /^error: \/dev\/zero is longer than the 8388608 bytes exp reads of it \(8 times the record size limit, 1048576 bytes\)$/m],
    ['a record from /dev/urandom', ['append', 'note', '/dev/urandom'], /^error: \/dev\/urandom is longer than the 8388608 bytes/m],
    ['a batch from /dev/zero', ['append', '--batch', '/dev/zero'], /^error: \/dev\/zero is longer than the 268435456 bytes exp reads of it \(256 times/m],
    ['an artifact from /dev/zero', ['append', 'note', 'n.yaml', '--artifact', '/dev/zero'], /^error: \/dev\/zero is longer than the 104857600 bytes exp reads of it \(the artifact size limit\)$/m],
    // (a folder was an "unknown file", with EISDIR as the hint)
    ['a record from a folder', ['append', 'note', '.git'], /^error: \.git is a folder, not a file$/m],
    ['an artifact from a folder', ['append', 'note', 'n.yaml', '--artifact', '.git'], /^error: \.git is a folder, not a file$/m],
  ]
  for (const [what, args, error] of cases) {
    const r = await exp([...args, '--lane', 'x'], {cwd: repo})
    t.equal(r.code, 2, `${what}: exit 2 (${r.stderr})`)
    t.match(r.stderr, error, what)
    t.match(r.stderr, /^hint: \S/m, `${what}: a next step`)
  }
  // stdin that never ends: `yes | exp append --batch -` read up to the bound (the test's own pipe, cut there)
  const yes = await new Promise<{code: number; stderr: string}>((resolve, reject) => {
    const child = spawn(...node([BIN, 'append', '--batch', '-', '--lane', 'x']), {cwd: repo, env: {...GIT_ENV}, stdio: ['pipe', 'ignore', 'pipe']})
    let stderr = ''
    child.stderr.on('data', d => (stderr += d))
    child.on('error', reject)
    child.on('close', code => resolve({code: code ?? 1, stderr}))
    const line = Buffer.alloc(1 << 20, 'y\n')
    const pump = () => {
      while (child.stdin.write(line));
      child.stdin.once('drain', pump)
    }
    child.stdin.on('error', () => undefined) // exp stops reading: the pipe closes under the writer
    pump()
  })
  t.equal(yes.code, 2, yes.stderr)
  t.match(yes.stderr, /^error: <stdin> is longer than the 268435456 bytes/m)
  const big = path.join(repo, 'big.json')
  fs.writeFileSync(big, Buffer.alloc(9 * 1024 * 1024, 0x20))
  const file = await exp(['append', 'note', 'big.json', '--lane', 'x'], {cwd: repo})
  t.equal(file.code, 2)
  t.match(file.stderr, /^error: big\.json is 9437184 bytes, more than the 8388608 bytes exp reads of it/m, 'a regular file over the bound is refused by its size')
  t.same(await expJson(['ledger'], {cwd: repo}), [], 'nothing was written')
})

t.test('a repository that commits links to /dev/zero (or holds a FIFO) as a skill, a scenario, a contract or a .research/ file: each named, none read', async t => {
  const repo = await makeRepo(t)
  fs.mkdirSync(path.join(repo, 'skills', 'a'), {recursive: true})
  fs.mkdirSync(path.join(repo, 'scenarios'))
  fs.mkdirSync(path.join(repo, '.research', 'contracts'), {recursive: true})
  fs.symlinkSync('/dev/zero', path.join(repo, 'skills', 'a', 'SKILL.md'))
  fs.symlinkSync('/dev/urandom', path.join(repo, 'scenarios', 'zero.yaml'))
  fs.symlinkSync('/dev/zero', path.join(repo, '.research', 'contracts', 'z.yaml'))
  execFileSync('mkfifo', [path.join(repo, 'scenarios', 'fifo.yaml')])
  await git(repo, 'add', 'skills', 'scenarios/zero.yaml', '.research')
  await git(repo, 'commit', '-q', '-m', 'links to devices')
  // each command ends (a hang or a read of /dev/zero until memory runs out failed this test by its timeout)
  const run = (args: string[]) => exp(args, {cwd: repo, timeoutMs: 60_000})
  const skills = await run(['skills', 'lint'])
  t.equal(skills.code, 1, skills.stderr)
  t.match(skills.stdout, /^skills\/a\/SKILL\.md: \[skill\/unreadable\] SKILL\.md is a character device, not a regular file/m)
  const scenarios = await run(['scenarios', 'lint'])
  t.equal(scenarios.code, 1, scenarios.stderr)
  t.match(scenarios.stdout, /^scenarios\/fifo\.yaml:1: is a FIFO, not a regular file/m)
  // (a scenario file is refused as a link before it is opened: the tree id a run pins holds the link, not its target)
  t.match(scenarios.stdout, /^scenarios\/zero\.yaml:1: is a symbolic link: a run pins its scenarios by their folder's git tree id/m)
  const contract = await run(['contract', 'lint', 'z'])
  t.equal(contract.code, 2, contract.stderr)
  t.match(contract.stderr, /^error: \.research\/contracts\/z\.yaml is a character device, not a regular file: exp reads only regular files of a work tree$/m)
  t.match(contract.stderr, /^hint: replace \.research\/contracts\/z\.yaml with a regular file/m)
  fs.symlinkSync('/dev/zero', path.join(repo, '.research', 'config.yaml'))
  const config = await run(['run', 'train', '--lane', 'x'])
  t.equal(config.code, 2, config.stderr)
  t.match(config.stderr, /^error: \.research\/config\.yaml is a symbolic link to \/dev\/zero, outside the work tree/m)
  fs.rmSync(path.join(repo, '.research', 'config.yaml'))
  fs.writeFileSync(path.join(repo, 'scenarios', 'big.yaml'), Buffer.alloc(17 * 1024 * 1024, 0x20))
  const big = await run(['scenarios', 'lint'])
  t.match(big.stdout, /^scenarios\/big\.yaml:1: is 17825792 bytes, more than the 16777216 bytes exp reads of one file of a work tree$/m, 'a huge regular file is refused by its size')
  fs.mkdirSync(path.join(repo, 'scenarios', 'folder.yaml'))
  t.match((await run(['scenarios', 'lint'])).stdout, /^scenarios\/folder\.yaml:1: is a folder, not a regular file/m, 'a folder named like a scenario')
})

// Found by a sweep of hostile inputs: `exp run --skill` read a SKILL.md that is a link to /dev/zero
// until ~640 MB and failed "unexpected", and one that is a FIFO hung past SIGTERM; the held-out key
// file had the same read.
t.test('exp run --skill at a link to /dev/zero or a FIFO, and a key file that is one: named, not read', async t => {
  const repo = await makeRepo(t)
  t.equal((await exp(['init', '--example', 'onboarding'], {cwd: repo})).code, 0)
  fs.mkdirSync(path.join(repo, 'skills', 'zero'))
  fs.symlinkSync('/dev/zero', path.join(repo, 'skills', 'zero', 'SKILL.md'))
  fs.mkdirSync(path.join(repo, 'skills', 'fifo'))
  execFileSync('mkfifo', [path.join(repo, 'skills', 'fifo', 'SKILL.md')])
  for (const [skill, what] of [['skills/zero', 'a character device'], ['skills/fifo', 'a FIFO'], ['skills/fifo/SKILL.md', 'a FIFO']]) {
    const r = await exp(['run', 'train', '--skill', skill!, '--lane', 'x'], {cwd: repo, timeoutMs: 60_000})
    t.equal(r.code, 2, `--skill ${skill}: ${r.stderr}`)
    t.match(r.stderr, new RegExp(`^error: skills/\\w+/SKILL\\.md is ${what}, not a regular file`, 'm'), `--skill ${skill}: named`)
  }
  t.same(await expJson(['ledger'], {cwd: repo}), [], 'nothing was recorded')
  const {findHoldoutKey} = await import('../../src/scenarios/key.js')
  const fifo = path.join(repo, 'key.fifo')
  execFileSync('mkfifo', [fifo])
  for (const [file, why] of [['/dev/zero', /EXP_HOLDOUT_KEY_FILE names \/dev\/zero, which is a character device, not a regular file/], [fifo, /which is a FIFO, not a regular file/]] as const) {
    await t.rejects(findHoldoutKey({env: {EXP_HOLDOUT_KEY_FILE: file}}), {code: 'E_SEALED', message: why}, `a key file at ${file}`)
  }
  fs.writeFileSync(path.join(repo, 'big.key'), Buffer.alloc(100_000, 0x61))
  await t.rejects(findHoldoutKey({env: {EXP_HOLDOUT_KEY_FILE: path.join(repo, 'big.key')}}), {code: 'E_SEALED', message: /is 100000 bytes, more than the 65536 bytes a key file holds/})
  // a contract's sealed private data, committed as a link to /dev/zero or held as a FIFO: `exp seal --contract` names it
  const research = await makeRepo(t)
  await quadRepo(research, args => exp(args, {cwd: research}))
  const sealedFile = path.join(research, '.research', 'contracts', 'quad.private.sealed')
  for (const [what, put] of [['a character device', (f: string) => fs.symlinkSync('/dev/zero', f)], ['a FIFO', (f: string) => execFileSync('mkfifo', [f])]] as const) {
    fs.rmSync(sealedFile)
    put(sealedFile)
    fs.writeFileSync(path.join(research, 'data', 'secret.json'), '{"target": 5}\n')
    const r = await exp(['seal', '--contract', 'quad'], {cwd: research, timeoutMs: 60_000})
    t.equal(r.code, 2, `the sealed file ${what}: ${r.stderr}`)
    t.match(r.stderr, new RegExp(`^error: \\.research/contracts/quad\\.private\\.sealed is ${what}, not a regular file`, 'm'), `the sealed file ${what}: named`)
    t.ok(fs.existsSync(path.join(research, 'data', 'secret.json')), `the sealed file ${what}: the plain file is kept`)
  }
})

t.test('records have a size limit: a clear error and nothing written; configurable; big old records still read with --json', async t => {
  const repo = await makeRepo(t)
  const big = JSON.stringify({text: 'x'.repeat(2 * 1024 * 1024)})
  const r = await exp(['append', 'note', '-', '--lane', 'x'], {cwd: repo, input: big})
  t.equal(r.code, 2)
  t.match(r.stderr, /error: note record nt-[0-9a-f]{24} is \d+ bytes, more than the limit of 1048576/)
  t.match(r.stderr, /hint: .*artifact/)
  t.same(await expJson(['ledger'], {cwd: repo}), [], 'nothing was written')
  await git(repo, 'config', 'exp.maxRecordBytes', '4m')
  const ok = await exp(['append', 'note', '-', '--lane', 'x'], {cwd: repo, input: big})
  t.equal(ok.code, 0, 'a raised limit lets it in')
  await git(repo, 'config', 'exp.maxRecordBytes', 'lots')
  const bad = await exp(['append', 'note', '-', '--lane', 'x'], {cwd: repo, input: '{"text":"small"}'})
  t.equal(bad.code, 2)
  t.match(bad.stderr, /git config exp\.maxRecordBytes is "lots", not a size/)
  await git(repo, 'config', '--unset', 'exp.maxRecordBytes')
  // a 10 MB record written before the limit existed (by hand): every --json read still works
  const old = seal(prepare({kind: 'note', body: {text: 'y'.repeat(10 * 1024 * 1024)}}), {lane: 'old', lamport: 5, createdAt: '2026-01-01T00:00:00.000Z'})
  await handCommit(repo, 'old', `research/notes/${old.id.slice(3, 5)}/${old.id}.json`, encodeRecord(old).toString(), `note: big\n\nExp-Record: note/${old.id}\nExp-Schema: note@1\nExp-Lamport: 5\n`)
  const l = await exp(['ledger', '--json'], {cwd: repo})
  t.equal(l.code, 0, l.stderr)
  t.same((JSON.parse(l.stdout) as {id: string}[]).map(x => x.id).slice(-1), [old.id])
  const i = await exp(['inspect', old.id, '--json'], {cwd: repo})
  t.equal(i.code, 0, i.stderr)
  t.equal((JSON.parse(i.stdout) as {record: {body: {text: string}}}).record.body.text.length, 10 * 1024 * 1024)
})

t.test('lenient input is refused with the file, field or flag named, a non-zero exit, and nothing written', async t => {
  const repo = await makeRepo(t)
  fs.writeFileSync(path.join(repo, 'bomb.yaml'), `${BOMB}\ntext: hi\n`)
  fs.writeFileSync(path.join(repo, 'latin1.json'), Buffer.concat([Buffer.from('{"text":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]))
  const known = (await exp(['append', 'note', '-', '--lane', 'k'], {cwd: repo, input: 'text: known'})).stdout.trim()
  const cases: [string[], string, RegExp, number][] = [
    [['append', 'note', 'bomb.yaml', '--lane', 'x'], '', /bomb\.yaml: too many YAML alias expansions/, 2],
    [['append', 'note', 'latin1.json', '--lane', 'x'], '', /latin1\.json:1:13: invalid UTF-8 at byte 12/, 2],
    [['append', 'note', '-', '--lane', 'x'], '{"text":"a","text":"b"}', /<stdin>:1:13: duplicate key "text"/, 2],
    [['append', 'note', '-', '--batch', '--lane', 'x'], '{"text":"ok"}\n{"text":"a","text":"b"}\n', /<stdin>:2:13: duplicate key "text"/, 2],
    [['append', 'note', '-', '--lane', 'x'], '{"text":"a\\ud800"}', /<stdin>: \$\.text: a lone UTF-16 surrogate \(\\ud800\)/, 2],
    [['append', 'note', '-', '--lane', 'x'], 'text: !!js/function "function () {}"', /<stdin>:1:7: Unresolved tag: tag:yaml\.org,2002:js\/function/, 2],
    [['append', 'note', '-', '--lane', 'x'], '{"text":"id","n":12345678901234567890}', /<stdin>:1:18: 12345678901234567890 is an integer beyond 2\^53 \(9007199254740991\): it would be read as 12345678901234567000/, 2],
    [['append', 'note', '-', '--batch', '--lane', 'x'], '{"text":"ok"}\n{"text":"n","n":[-9007199254740993]}\n', /<stdin>:2:18: -9007199254740993 is an integer beyond 2\^53/, 2],
    [['append', 'note', '-', '--lane', 'x'], 'text: id\nn: 0x1FFFFFFFFFFFFFFF\n', /<stdin>:2:4: 0x1FFFFFFFFFFFFFFF is an integer beyond 2\^53/, 2],
    [['append', 'note', '-', '--lane', 'x', '--cite', 'nt-0123456789abcdef01234567'], 'text: x', /unknown record id: nt-0123456789abcdef01234567 \(given with --cite\)/, 3],
    [['append', 'note', '-', '--lane', 'x', '--cite', 'not-an-id'], 'text: x', /--cite "not-an-id" is not a record id/, 2],
    [['append', 'note', '-', '--lane', ''], 'text: x', /invalid lane name \(--lane\) "": it is empty/, 2],
    [['append', 'note', 'missing.yaml', '--lane', 'x'], '', /unknown input file: missing\.yaml/, 3],
    [['claim', 'hy-0123456789abcdef01234567', '--ttl', '99999999999999'], '', /--ttl|ttl/, 2],
    [['ledger', '--since', '-1'], '', /--since|since/, 2],
    [['ledger', '--lane', '../x'], '', /invalid lane name \(--lane\) "\.\.\/x"/, 2],
    [['ledger', '--cites', 'kn-1'], '', /--cites "kn-1" is not a record id/, 2],
  ]
  for (const [args, input, re, code] of cases) {
    const r = await exp(args, {cwd: repo, input, env: {EXP_LANE: 'x'}})
    t.equal(r.code, code, `${args.join(' ')} exits ${code}`)
    t.match(r.stderr, re, args.join(' '))
    t.notMatch(r.stderr, /unexpected|Invalid time value|\n\s+at /, 'not an internal error')
  }
  t.same((await expJson<{id: string}[]>(['ledger'], {cwd: repo})).map(r => r.id), [known], 'nothing else was written')
  const cited = await exp(['append', 'note', '-', '--lane', 'x', '--cite', known], {cwd: repo, input: 'text: cites a known record'})
  t.equal(cited.code, 0, '--cite of a known id works')
})

t.test('a YAML alias bomb in one scenario file is that file problem: the others load; run skips it unless --strict', async t => {
  const dir = tempDir(t)
  const builtin = path.join(process.cwd(), 'scenarios')
  const good = fs.readdirSync(builtin).filter(f => f.endsWith('.yaml')).slice(0, 3)
  for (const f of good) fs.copyFileSync(path.join(builtin, f), path.join(dir, f))
  fs.writeFileSync(path.join(dir, 'zz-bomb.yaml'), `${BOMB}\nid: zz-bomb\n`)
  fs.writeFileSync(path.join(dir, 'zz-latin1.yaml'), Buffer.from([0x69, 0x64, 0x3a, 0x20, 0xe9, 0x0a]))
  const loaded = await loadScenarioDir(dir)
  t.equal(loaded.filter(l => l.scenario).length, 3, 'the good files load')
  const bomb = loaded.find(l => l.file.endsWith('zz-bomb.yaml'))!
  t.match(bomb.problems[0]!.message, /alias bomb/)
  t.match(loaded.find(l => l.file.endsWith('zz-latin1.yaml'))!.problems[0]!.message, /invalid UTF-8/)
  const split = (loaded.find(l => l.scenario)!.scenario!).split
  const ds = await loadDataset(dir, split)
  t.ok(ds.scenarios.length >= 1, 'run loads the good ones')
  t.equal(ds.problems.length, 2, 'and reports the bad ones')
  await t.rejects(loadDataset(dir, split, {strict: true}), {code: 'E_SCHEMA'}, '--strict stops')
  const lint = await exp(['scenarios', 'lint', dir], {cwd: dir})
  t.not(lint.code, 0)
  t.match(lint.stdout, /zz-bomb\.yaml:1:1: YAML: too many YAML alias expansions/)
  t.notMatch(lint.stderr, /unexpected/)
})

t.test('a 5 MB SKILL.md frontmatter is a lint problem, not parsed', async t => {
  const dir = tempDir(t)
  const skill = path.join(dir, 'onboarding')
  fs.mkdirSync(skill)
  fs.writeFileSync(path.join(skill, 'SKILL.md'), `---\nname: onboarding\ndescription: ${'x'.repeat(5 * 1024 * 1024)}\n---\n\n# Onboarding\n`)
  const res = await lintSkill(skill, {requirePurpose: false})
  t.same(res.problems.filter(p => p.rule === 'frontmatter/size').map(p => p.line), [1])
  t.match(res.problems.find(p => p.rule === 'frontmatter/size')!.message, /more than 65536 \(64 KiB\)/)
})

// node decodes each argument as UTF-8 and puts U+FFFD for bytes that are not: `--key $'\xff'`
// was stored as the key "\ufffd". The command line is read as the kernel holds it.
t.test('an argument that is not UTF-8 is a usage error naming the flag, before anything is written; U+FFFD itself passes', async t => {
  const repo = await makeRepo(t)
  const run = (words: string) => spawnSync('/bin/sh', ['-c', `exec "$0" -u NODE_OPTIONS "${process.execPath}" "${BIN}" ${words}`, '/usr/bin/env'], {cwd: repo, env: GIT_ENV, input: '{"text":"hi"}', encoding: 'utf8'})
  const cases: [string, RegExp][] = [
    [`append note - --key "$(printf 'a\\377b')"`, /^error: the value of --key is not valid UTF-8: a\\xffb$/m],
    [`append note - --lane "$(printf '\\300\\257x')"`, /^error: the value of --lane is not valid UTF-8: \\xc0\\xafx$/m],
    [`append note "$(printf 'n\\351.yaml')"`, /^error: argument 3 is not valid UTF-8: n\\xe9\.yaml$/m],
    [`append note - --json "$(printf '\\377')"`, /^error: argument 5 is not valid UTF-8: \\xff$/m],
  ]
  for (const [words, message] of cases) {
    const r = run(words)
    t.equal(r.status, 2, words)
    t.match(r.stderr, message, words)
    t.match(r.stderr, /^hint: exp takes text as UTF-8/m)
  }
  t.match(JSON.parse(run(`append note - --json "$(printf '\\377')"`).stdout), {error: {code: 'E_USAGE'}}, '--json gets the error as JSON')
  t.same(await expJson(['ledger'], {cwd: repo}), [], 'nothing was written')
  const ok = run(`append note - --key "é-$(printf '\\357\\277\\275')" --lane x`)
  t.equal(ok.status, 0, ok.stderr)
  t.match(await expJson<{key: string}[]>(['ledger', '--lane', 'x'], {cwd: repo}), [{key: 'é-\ufffd'}], 'U+FFFD written in UTF-8 is a character like any other')
})
