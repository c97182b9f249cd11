import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp} from '../helpers/cli.js'
import {makeRepo, git, tempDir} from '../helpers/repo.js'

// Found attacking as a pull-request author: exp wrote its results through symbolic links the
// repository holds. `results/report.md -> ~/.bashrc`, committed, made `exp report` overwrite
// the file it names in whoever's checkout ran it; in CI, `exp-gate.md` as a link was written
// through by the gate and then read (and posted) by the comment step.
t.test('result files replace a link at their name and never write through it; a linked folder is refused', async t => {
  const repo = await makeRepo(t)
  t.equal((await exp(['init', '--example', 'onboarding'], {cwd: repo})).code, 0)
  const outside = tempDir(t)
  const victim = path.join(outside, 'victim.txt')
  fs.writeFileSync(victim, 'precious\n')
  fs.mkdirSync(path.join(repo, 'results'))
  fs.symlinkSync(victim, path.join(repo, 'results', 'report.md'))
  fs.symlinkSync(victim, path.join(repo, 'exp-gate.md'))
  fs.symlinkSync(victim, path.join(repo, 'exp-gate.xml'))
  await git(repo, 'add', '-A')
  await git(repo, 'commit', '-qm', 'links')
  const r = await exp(['report'], {cwd: repo})
  t.equal(r.code, 0, r.stderr)
  t.equal(fs.readFileSync(victim, 'utf8'), 'precious\n', 'the linked file is untouched')
  t.ok(fs.lstatSync(path.join(repo, 'results', 'report.md')).isFile(), 'the report is a file where the link was')
  t.match(fs.readFileSync(path.join(repo, 'results', 'report.md'), 'utf8'), /^# Experience Compiler report/)
  t.same(fs.readdirSync(path.join(repo, 'results')).filter(f => f.endsWith('.tmp')), [], 'no temporary file is left')
  const g = await exp(['gate', '--base', 'main', '--junit', 'exp-gate.xml', '--comment', 'exp-gate.md'], {cwd: repo})
  t.equal(g.code, 0, g.stderr)
  t.equal(fs.readFileSync(victim, 'utf8'), 'precious\n', 'the gate wrote neither file through its link')
  t.match(fs.readFileSync(path.join(repo, 'exp-gate.md'), 'utf8'), /^<!-- exp-gate -->/)
  // result files in folders that do not exist yet: made, as for --out (the gate ran, then
  // failed naming its temporary file)
  const nested = await exp(['gate', '--base', 'main', '--junit', 'reports/gate/exp-gate.xml', '--comment', 'reports/c.md'], {cwd: repo})
  t.equal(nested.code, 0, nested.stderr)
  t.match(fs.readFileSync(path.join(repo, 'reports/gate/exp-gate.xml'), 'utf8'), /<testsuites/)
  t.ok(fs.existsSync(path.join(repo, 'reports/c.md')))
  // an events file that is a link: refused, not appended through
  fs.symlinkSync(victim, path.join(repo, 'ev.jsonl'))
  const ev = await exp(['run', 'validation', '--shard', '1/64', '--events', 'ev.jsonl'], {cwd: repo})
  t.equal(ev.code, 2, ev.stderr)
  t.match(ev.stderr, /cannot open the events file .*ev\.jsonl: it is a symbolic link/)
  t.equal(fs.readFileSync(victim, 'utf8'), 'precious\n', 'nor the events')
  // an events file that is a FIFO no process reads: said at once (the open waited, past SIGTERM)
  if (process.platform !== 'win32') {
    const {execFileSync} = await import('node:child_process')
    execFileSync('mkfifo', [path.join(repo, 'ev.fifo')])
    const fifo = await exp(['run', 'validation', '--shard', '1/64', '--events', 'ev.fifo'], {cwd: repo, timeoutMs: 30_000})
    t.equal(fifo.code, 2, fifo.stderr)
    t.match(fifo.stderr, /cannot open the events file .*ev\.fifo: it is a FIFO that no process reads/)
  }
  // a folder of the work tree that is a link to elsewhere: refused before anything runs
  fs.rmSync(path.join(repo, 'results'), {recursive: true})
  fs.symlinkSync(outside, path.join(repo, 'results'))
  for (const args of [['report'], ['report', '--out', 'results/sub']]) {
    const x = await exp(args, {cwd: repo})
    t.equal(x.code, 2, x.stderr)
    t.match(x.stderr, /error: --out results(\/sub)?: results is a symbolic link \(to .*\), and exp writes its results only into real folders of the work tree/)
  }
  // a folder whose name begins with two dots is in the work tree too (it was taken for one
  // outside it, so not checked: the report went through the link)
  fs.symlinkSync(outside, path.join(repo, '..results'))
  const dots = await exp(['report', '--out', '..results'], {cwd: repo})
  t.equal(dots.code, 2, dots.stderr)
  t.match(dots.stderr, /error: --out \.\.results: \.\.results is a symbolic link/)
  t.same(fs.readdirSync(outside), ['victim.txt'], 'nothing was written where the link points')
})

// Found by red-teaming: every view escaped another lane's control and bidi characters but
// `exp graph --format mermaid|dot` (the "fit to paste" output): a hypothesis statement cleared
// the screen and set the terminal's title when it was printed.
t.test('exp graph diagrams show another lane\'s escape sequences and bidi controls as \\u escapes', async t => {
  const repo = await makeRepo(t)
  const evil = 'stmt\u001b[2J\u001b]0;PWNED\u0007\u202e\u009b31mX'
  const h = {statement: evil, mechanism: 'm', expected_effect: {metric: 'success', direction: 'increase'}, conditions: [], mechanism_family: 'f'}
  t.equal((await exp(['append', 'hypothesis', '-', '--lane', 'mallory'], {cwd: repo, input: JSON.stringify(h)})).code, 0)
  for (const format of ['mermaid', 'dot']) {
    const g = await exp(['graph', '--format', format], {cwd: repo})
    t.equal(g.code, 0, g.stderr)
    t.match(g.stdout, /stmt\\u001b\[2J\\u001b\]0;PWNED\\u0007\\u202e\\u009b31mX/, format)
    const raw = [...g.stdout].filter(c => c !== '\n' && c !== '\t' && (c < ' ' || (c >= '\u007f' && c <= '\u009f') || (c >= '\u202a' && c <= '\u202e')))
    t.same(raw, [], `${format}: no control or bidi character printed raw`)
  }
})

// Found by red-teaming: both stopped exp append with "Maximum call stack size exceeded … this
// is unexpected", naming no file or field.
t.test('a YAML alias inside its own anchor, and JSON nested 50,000 deep, are refused naming the file', async t => {
  const repo = await makeRepo(t)
  fs.writeFileSync(path.join(repo, 'loop.yaml'), 'text: &a [*a, *a]\n')
  fs.writeFileSync(path.join(repo, 'deep.json'), `{"text":"deep","about":${'['.repeat(50_000)}${']'.repeat(50_000)}}`)
  for (const f of ['loop.yaml', 'deep.json']) {
    const r = await exp(['append', 'note', f, '--lane', 'x'], {cwd: repo})
    t.equal(r.code, 2, r.stderr)
    t.match(r.stderr, new RegExp(`error: ${f.replace('.', '\\.')}: body is nested more than 256 levels deep, or holds itself`))
    t.notMatch(r.stderr, /unexpected|call stack/)
  }
  t.equal((await git(repo, 'for-each-ref', 'refs/research/')).trim(), '', 'nothing was written')
})

// Found by an attack sweep: a lane ref named with a C1 CSI (U+009B) and U+202E, as a plain
// `git fetch 'refs/research/*:refs/research/*'` brings it, reached stderr as raw bytes in the
// warnings of every read (stdout escaped them), with the hint of a ref file holding no object id.
t.test("a lane ref's name with control and bidi characters reaches stderr escaped, with what to do about it", async t => {
  const repo = await makeRepo(t)
  t.equal((await exp(['append', 'note', '-', '--lane', 'alice'], {cwd: repo, input: 'text: hi\n'})).code, 0)
  await git(repo, 'update-ref', 'refs/research/lanes/x\u009b2J\u202eevil', 'refs/research/lanes/alice')
  for (const args of [['ledger'], ['lanes']]) {
    const r = await exp(args, {cwd: repo})
    t.equal(r.code, 5, args.join(' '))
    t.notMatch(r.stderr, /[\u009b\u202e]/, `${args.join(' ')}: no raw control or bidi character`)
    t.match(r.stderr, /x\\u009b2J\\u202eevil/)
  }
  const l = await exp(['ledger'], {cwd: repo})
  t.match(l.stderr, /is not a lane name.*a lane name is one component of letters, digits/)
  t.notMatch(l.stderr, /does not hold an object id/)
})

// Found by a sweep: a committed scenario file named with an escape sequence drove the terminal
// through `exp run`'s "skipped …" line, and one with a newline in its name printed a line of
// its own ("ok.yaml:1: fine") in `exp scenarios lint`.
t.test('a scenario file named with escape sequences or a newline: one line each, escaped, in lint, list and run', async t => {
  const repo = await makeRepo(t)
  t.equal((await exp(['init', '--example', 'onboarding'], {cwd: repo})).code, 0)
  fs.writeFileSync(path.join(repo, 'scenarios', 'x\u001b]0;PWNED\u0007\u001b[2J\nok.yaml:1: fine.yaml'), 'id: x\n')
  for (const args of [['scenarios', 'lint'], ['scenarios', 'list'], ['run', 'train', '--repeat', '1']]) {
    const r = await exp(args, {cwd: repo})
    const out = r.stdout + r.stderr
    // eslint-disable-next-line no-control-regex
    t.notOk(/[\u001b\u0007]/.test(out), `exp ${args.join(' ')}: no raw escape`)
    t.notOk(out.split('\n').some(l => l.startsWith('ok.yaml:1: fine')), `exp ${args.join(' ')}: no forged line`)
    t.match(out, /x\\u001b\]0;PWNED\\u0007\\u001b\[2J\\u000aok\.yaml:1: fine\.yaml:1:/, `exp ${args.join(' ')} names the file, escaped`)
  }
})

// Found by a sweep: a record whose object is missing was named only by `exp ledger`;
// provenance, report, hypotheses and graph printed nothing on stderr (and provenance called
// it "not in this clone"). Every view that reads the ledger names what it left out.
t.test('a record whose object is gone is named by every view that reads the ledger', async t => {
  const repo = await makeRepo(t)
  const note = (await exp(['append', 'note', '-', '--lane', 'alice'], {cwd: repo, input: 'text: kept'})).stdout.trim()
  const gone = (await exp(['append', 'note', '-', '--lane', 'alice'], {cwd: repo, input: 'text: lost'})).stdout.trim()
  t.match(note, /^nt-/)
  const file = (await git(repo, 'ls-tree', '-r', '--name-only', 'refs/research/lanes/alice')).split('\n').find(l => l.includes(gone))!
  const blob = (await git(repo, 'rev-parse', `refs/research/lanes/alice:${file}`)).trim()
  fs.rmSync(path.join(repo, '.git', 'objects', blob.slice(0, 2), blob.slice(2)))
  fs.rmSync(path.join(repo, '.git', 'exp'), {recursive: true, force: true})
  for (const args of [['hypotheses'], ['graph'], ['frontier']]) {
    const r = await exp(args, {cwd: repo})
    t.match(r.stderr, new RegExp(`warning: skipped refs/research/lanes/alice .*${gone}`), `exp ${args.join(' ')} names the record it left out`)
  }
})
