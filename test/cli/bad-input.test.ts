import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp} from '../helpers/cli.js'
import {expBatch} from '../helpers/cli-batch.js'
import {exampleRepo} from '../helpers/evolve.js'
import {git, tempDir} from '../helpers/repo.js'

// Bad input across commands, as a demanding user of git-style tools types it: each case must
// name the flag, argument, id or file, give a next step (hint:), exit with its status and
// write nothing (no ref moves, no file appears). Only the error paths run: a few seconds.
const UNKNOWN = 'pr-0123456789abcdef01234567'

interface Case {
  args: string[]
  code: number
  error: RegExp
  hint?: RegExp
  env?: NodeJS.ProcessEnv
  /** also on a repository whose main branch is called main (the table runs on master) */
  both?: boolean
}

const CASES: Case[] = [
  // unknown lane, id, contract, branch, skill, file
  {both: true, args: ['ledger', '--lane', 'nosuch'], code: 3, error: /unknown lane: nosuch/, hint: /exp lanes/},
  {args: ['ledger', '--lane', 'a b'], code: 2, error: /invalid lane name \(--lane\) "a b"/, hint: /a lane name \(--lane\) uses letters/},
  {both: true, args: ['ledger', '--cites', UNKNOWN], code: 3, error: new RegExp(`unknown record id: ${UNKNOWN} \\(given with --cites\\)`), hint: /exp ledger/},
  {args: ['inspect', ''], code: 2, error: /the record id is empty/, hint: /exp ledger/},
  {args: ['inspect', 'pr-'], code: 3, error: /unknown record id: pr-$/m, hint: /a prefix needs at least 4 hex digits after the dash/},
  {args: ['inspect', 'pr-012'], code: 3, error: /unknown record id: pr-012$/m, hint: /a prefix needs at least 4 hex digits/},
  // an id a shell variable left empty (`exp promote "$p"` after a propose -q that proposed nothing) names nothing
  {args: ['promote', ''], code: 2, error: /the proposal id is empty/, hint: /exp ledger --kind proposal/},
  {args: ['eval', ' '], code: 2, error: /the proposal id is empty/},
  {args: ['claim', ''], code: 2, error: /the hypothesis id is empty/},
  {args: ['attempt', 'eval', ''], code: 2, error: /the attempt id is empty/},
  {args: ['promote', 'pr'], code: 3, error: /unknown proposal: pr$/m},
  {both: true, args: ['report', '--skill', 'nosuch'], code: 3, error: /unknown skill on main: (master|main):skills\/nosuch\/SKILL\.md/, hint: /^hint: the skills on (master|main): onboarding$/m},
  {args: ['matrix', '--skill', 'nosuch'], code: 3, error: /unknown skill on main: master:skills\/nosuch\/SKILL\.md/, hint: /the skills on master: onboarding/},
  {args: ['provenance', 'nosuch'], code: 3, error: /unknown skill on main: master:skills\/nosuch\/SKILL\.md/, hint: /the skills on master: onboarding/},
  // a typo is named with the skill meant
  {both: true, args: ['blame', 'onbording'], code: 3, error: /unknown skill on main: (master|main):skills\/onbording\/SKILL\.md/, hint: /did you mean onboarding\? The skills on (master|main): onboarding/},
  {args: ['evolve', '--skill', 'onboard', '--iterations', '1'], code: 3, error: /unknown skill on main: master:skills\/onboard\/SKILL\.md/, hint: /did you mean onboarding\?/},
  {both: true, args: ['fsck', '--main', 'nosuch'], code: 3, error: /unknown branch: refs\/heads\/nosuch/, hint: /--main/},
  {both: true, args: ['attempt', 'list', '--contract', 'nosuch'], code: 3, error: /unknown contract: nosuch/, hint: /contracts here: skills/},
  {both: true, args: ['blame', 'onboarding', 'NOPE.md'], code: 2, error: /exp blame onboarding NOPE\.md: FILE is for a research contract/, hint: /exp blame onboarding`/},
  {args: ['gate', '--head', 'nosuch'], code: 3, error: /unknown head revision: nosuch/, hint: /--head REF/},
  {both: true, args: ['research', 'skills', '--lane', 't'], code: 2, error: /contract skills is judged by the world evaluator/, hint: /exp evolve/},
  {args: ['attempt', 'new', 'skills', '--lane', 't'], code: 2, error: /contract skills is judged by the world evaluator/, hint: /exp gate/},
  {args: ['evolve', '-n', '1', '--agent', 'nosuch', '--lane', 't'], code: 2, error: /unknown agent: "nosuch"/, hint: /scripted/},
  {args: ['evolve', '-n', '1', '--scenarios', 'nosuch', '--lane', 't'], code: 3, error: /unknown scenarios folder: nosuch/, hint: /--scenarios/},
  // paths to write: never inside .git, a file where a folder is needed and the reverse, nothing below a file
  {args: ['gate', '--junit', '.git/config'], code: 2, error: /--junit \.git\/config is git's own, in the repository's git folder/, hint: /--junit results\/config/},
  {both: true, args: ['run', 'train', '--events', '.git/HEAD', '--lane', 't'], code: 2, error: /--events \.git\/HEAD is git's own, in the repository's git folder/},
  {args: ['run', 'train', '--lane', 't'], env: {EXP_EVENTS: '.git/HEAD'}, code: 2, error: /EXP_EVENTS=\.git\/HEAD is git's own, in the repository's git folder/, hint: /EXP_EVENTS=results\/HEAD/},
  {args: ['compare', '--out', '.git/refs/compare'], code: 2, error: /--out \.git\/refs\/compare is git's own, in the repository's git folder/},
  // (found by an attack sweep: on a file system that ignores case, .git/Hooks is .git/hooks)
  {args: ['report', '--out', '.git/Hooks'], code: 2, error: /--out \.git\/Hooks is git's own, in the repository's git folder/},
  {args: ['report', '--out', '.research/config.yaml'], code: 2, error: /--out \.research\/config\.yaml is a file; a folder is needed/},
  {args: ['report', '--out', '.research/config.yaml/site'], code: 2, error: /\.research\/config\.yaml is a file, so nothing can be written below it/},
  {args: ['gate', '--comment', 'scenarios'], code: 2, error: /--comment scenarios is a folder; a file is needed/},
  // the command line itself: oclif's errors in exp's format, exit 2
  {args: ['run', 'train', '--repat', '2'], code: 2, error: /unknown flag: --repat/, hint: /did you mean --repeat\?/},
  {args: ['run', 'train', '--repeat', '0'], code: 2, error: /--repeat: expected an integer greater than or equal to 1 but received: 0/, hint: /exp run --help/},
  {args: ['propose', 'onboarding', '--items', '0'], code: 2, error: /--items: expected an integer greater than or equal to 1/},
  {args: ['inspect'], code: 2, error: /missing ID \(record id/, hint: /exp inspect --help/},
  {args: ['run', 'train', 'extra'], code: 2, error: /unexpected argument: extra/},
  // a word too many after a command without arguments (oclif took it for more of the command's name)
  {args: ['lanes', 'extra'], code: 2, error: /unexpected argument: extra/, hint: /exp lanes --help/},
  {args: ['graph', 'nosuch', '--format', 'dot'], code: 2, error: /unexpected argument: nosuch/, hint: /exp graph --help/},
  // an empty argument names nothing: it was read as the current folder, as every contract, or as a file `.yaml`
  {args: ['skills', 'lint', ''], code: 2, error: /^error: PATH is empty: an empty word names nothing$/m, hint: /leave it out for its default/},
  {args: ['skills', 'lint', 'skills', ''], code: 2, error: /^error: argument 2 is empty/m},
  {args: ['contract', 'lint', ''], code: 2, error: /^error: NAME is empty/m},
  {args: ['research', ''], code: 2, error: /^error: CONTRACT is empty/m, hint: /^hint: give one; `exp research --help`/m},
  {args: ['run', ''], code: 2, error: /^error: SPLIT is empty/m},
  // an empty word is shown as one, a long one cut
  {args: ['run', 'train', ''], code: 2, error: /^error: unexpected argument: ""$/m},
  {args: ['ledger', 'a b', 'x'.repeat(300)], code: 2, error: /^error: unexpected arguments: "a b", x{54}…x{26} \(300 characters\)$/m},
  // a word an error repeats is cut in the middle (a path's end names the file), its length given
  {args: ['inspect', 'a'.repeat(3000)], code: 3, error: /^error: unknown record id: a{107}…a{53} \(3000 characters\)$/m},
  {args: ['ledger', '--lane', 'l'.repeat(3000)], code: 2, error: /^error: invalid lane name \(--lane\) "l{107}…l{53} \(3000 characters\)": /m},
  {args: ['skills', 'lint', `${'d'.repeat(3000)}/SKILL.md`], code: 3, error: /^error: unknown path: d{107}…d{44}\/SKILL\.md \(3009 characters\)$/m},
  {args: ['run', 's'.repeat(3000)], code: 2, error: /^error: unknown split: s{107}…s{53} \(3000 characters\)$/m},
  {args: ['ledger', '-C', 'c'.repeat(3000)], code: 3, error: /^error: unknown folder: c{107}…c{53} \(3000 characters\)$/m},
  // (a ref name too long for a file was an unexpected ENAMETOOLONG, exit 1)
  {args: ['gate', '--base', 'b'.repeat(3000)], code: 3, error: /^error: unknown base revision: b{107}…b{53} \(3000 characters\)$/m, hint: /git fetch origin/},
  {args: ['append', 'note', '-', '--cite', 'c'.repeat(3000)], code: 2, error: /^error: --cite "c{107}…c{53} \(3000 characters\)" is not a record id/m},
  {args: ['ledger', '--since', '9'.repeat(3000)], code: 2, error: /^error: --since: 9{107}…9{53} \(3000 characters\) is out of range/m},
  {args: ['graph', '--format', 'f'.repeat(3000)], code: 2, error: /^error: expected --format=f{98}…f{53} \(3009 characters\) to be one of/m},
  {args: ['evolve', '--agent', 'a'.repeat(3000)], code: 2, error: /^error: unknown agent: "a{107}…a{53} \(3000 characters\)" \(available/m},
  {args: ['mine', '--split', 's'.repeat(3000)], code: 2, error: /^error: cannot mine the s{107}…s{53} \(3000 characters\) split/m},
  // a mistyped command, with and without --help
  {args: ['ledgr'], code: 2, error: /^error: unknown command: ledgr$/m, hint: /did you mean `exp ledger`\?/},
  {args: ['attempt', 'lst'], code: 2, error: /unknown command: attempt lst/, hint: /did you mean `exp attempt list`\?/},
  {args: ['help', 'ledgr'], code: 2, error: /unknown command: ledgr/, hint: /did you mean `exp help ledger`\?/},
  {args: ['ledgr', '--help'], code: 2, error: /unknown command: ledgr/, hint: /`exp help` lists every command/},
  {args: ['--json', 'ledger', '--kind', 'note'], code: 2, error: /^error: --json comes before the command: flags go after it$/m, hint: /e\.g\. `exp ledger --kind note --json`/},
  {args: ['graph', '--format', 'svg'], code: 2, error: /expected --format=svg to be one of: json, mermaid, dot/},
  {args: ['retire', UNKNOWN], code: 2, error: /missing required flag --reason/},
  {args: ['audit-gate', '--noise', '2'], code: 2, error: /--noise 2 is not a probability/, hint: /from 0 to 1/},
  {args: ['append', 'note', '.research/policy.yaml', '--lane', 't'], code: 2, error: /record body must be a mapping|is invalid|must/},
]

async function snapshot(repo: string): Promise<string> {
  return `${await git(repo, 'for-each-ref')}${await git(repo, 'status', '--porcelain', '--ignored', '-uall')}`
}

for (const branch of ['master', 'main']) {
  t.test(`on ${branch}: bad input names what is wrong, says what to do, exits non-zero, writes nothing`, async t => {
    const repo = await exampleRepo(t)
    if (branch === 'master') await git(repo, 'branch', '-m', 'main', 'master')
    const cases = branch === 'master' ? CASES : CASES.filter(c => c.both)
    const before = await snapshot(repo)
    // the table in one process (test/helpers/cli-batch.ts): what is checked is each command's
    // message, status and that nothing was written, not the process; a real process per case
    // cost ~1 s of CPU each, mostly starting up. A few run as real processes too (an exp error,
    // an oclif parse error, the last one): the batch must say what the process says.
    const results = await expBatch(cases.map(c => ({args: c.args, cwd: repo, env: {EXP_LANE: '', ...c.env}})))
    for (const i of new Set([0, cases.findIndex(c => c.args.includes('--repat')), cases.length - 1].filter(i => i >= 0))) {
      const c = cases[i]!
      t.same(await exp(c.args, {cwd: repo, env: {EXP_LANE: '', ...c.env}}), results[i], `exp ${c.args.join(' ')}: the batch runs it as its own process does`)
    }
    cases.forEach((c, i) => {
      const r = results[i]!
      const name = `exp ${c.args.join(' ')}`
      t.equal(r.code, c.code, `${name} exits ${c.code}: ${r.stderr}`)
      t.match(r.stderr, /^error: /, `${name}: an error line`)
      t.match(r.stderr, c.error, name)
      t.match(r.stderr, c.hint ?? /^hint: \S/m, `${name}: a next step`)
      t.notMatch(r.stderr, /this is unexpected|report it|\n\s+at |›/, `${name}: not an internal error`)
    })
    t.equal(await snapshot(repo), before, 'no ref moved, no file appeared')
    t.notOk(fs.existsSync(path.join(repo, 'results')), 'no report was written')
  })
}

t.test('outside any git repository, a command that also reads plain folders says to make a repository first', async t => {
  const dir = tempDir(t)
  const r = await exp(['scenarios', 'list'], {cwd: dir})
  t.equal(r.code, 3)
  t.match(r.stderr, /hint: this folder is in no git repository: `git init` \(or a clone\), then `exp init --example onboarding`/)
})

// Found by a first-hour sweep: `exp run train` before `exp init` printed the system call's words
t.test('exp run in a repository exp is not set up in: no scenarios folder, and how to set one up', async t => {
  const dir = tempDir(t)
  await git(dir, 'init', '-q')
  const r = await exp(['run', 'train'], {cwd: dir})
  t.equal(r.code, 3)
  t.match(r.stderr, /error: there is no scenarios folder at .*scenarios\n/)
  t.notMatch(r.stderr, /ENOENT|scandir/)
  t.match(r.stderr, /hint: .*exp init --example onboarding/)
})

t.test('-C and --debug, the flags every command inherits, still parse', async t => {
  const repo = await exampleRepo(t)
  const r = await exp(['-C', 'skills', 'ledger', '--debug', '--lane', 'nosuch'], {cwd: repo})
  t.equal(r.code, 3, r.stderr)
  t.match(r.stderr, /^error: unknown lane: nosuch\nhint: [^\n]+\n\w*Error: unknown lane: nosuch\n\s+at /, 'the error, then its stack (--debug)')
  const lint = await exp(['skills', 'lint', '-C', path.join(repo, 'skills'), '--json'], {cwd: tempDir(t)})
  t.equal(lint.code, 0, lint.stderr)
})

t.test('a command-line error under --json is {error: {code, message, hint}} with exit 2, like every other error', async t => {
  const repo = await exampleRepo(t)
  const r = await exp(['ledger', '--since', 'abc', '--json'], {cwd: repo})
  t.equal(r.code, 2)
  const out = JSON.parse(r.stdout) as {error: {code: string; message: string; hint: string}}
  t.equal(out.error.code, 'E_USAGE')
  t.match(out.error.message, /^--since: expected an integer but received: abc$/)
  t.match(out.error.hint, /exp ledger --help/)
})

t.test('an unknown command, as its own process: the error format of exp, with --json too, and nothing printed to drive a terminal', async t => {
  const repo = await exampleRepo(t)
  const r = await exp(['ledgr', '--json'], {cwd: repo})
  t.equal(r.code, 2, r.stderr)
  const out = JSON.parse(r.stdout) as {error: {code: string; message: string; hint: string}}
  t.same([out.error.code, out.error.message], ['E_USAGE', 'unknown command: ledgr'])
  t.match(out.error.hint, /did you mean `exp ledger`\?/)
  const esc = await exp(['\u001b[2Jledger'], {cwd: repo})
  t.equal(esc.code, 2)
  t.match(esc.stderr, /^error: unknown command: \\u001b\[2Jledger$/m, 'the escape shown escaped')
  t.notOk(esc.stderr.includes('\u001b'), 'no escape sequence reaches the terminal')
  const extra = await exp(['ledger', 'extra'], {cwd: repo})
  t.equal(extra.code, 2)
  t.match(extra.stderr, /^error: unexpected argument: extra\nhint: `exp ledger --help`/)
  t.notMatch(`${extra.stderr}${r.stderr}`, /›|not found/, "not oclif's own message")
  const c = await exp(['-C'], {cwd: repo})
  t.equal(c.code, 2)
  t.match(c.stderr, /^error: -C needs a folder and a command after it\nhint: e\.g\. `exp -C \.\.\/other-clone ledger`/)
})

t.test('a malformed .research/config.yaml is named once, with the field', async t => {
  const repo = await exampleRepo(t)
  const file = path.join(repo, '.research', 'config.yaml')
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^seed: 42$/m, 'seed: abc'))
  const r = await exp(['run', 'train', '--lane', 't'], {cwd: repo})
  t.equal(r.code, 2)
  t.match(r.stderr, /^error: \.research\/config\.yaml:\d+ is invalid: seed must be integer$/m)
  // the schemas are exp's, not the repository's: the hint names where they are
  const where = /^hint: the allowed fields and values are in the JSON Schemas of exp, under (.+)$/m.exec(r.stderr)?.[1]
  t.ok(where && fs.existsSync(path.join(where, 'research', 'config.schema.json')), `the hint names exp's schemas folder: ${r.stderr}`)
})

t.test('exp init run again checks the files it keeps, and does not ignore a --main that disagrees with them', async t => {
  const repo = await exampleRepo(t)
  const again = await exp(['init', '--main', 'main'], {cwd: repo})
  t.equal(again.code, 0, again.stderr)
  const other = await exp(['init', '--main', 'trunk'], {cwd: repo})
  t.equal(other.code, 2)
  t.match(other.stderr, /^error: --main trunk: \.research\/config\.yaml already records main_branch: main$/m)
  fs.writeFileSync(path.join(repo, '.research', 'policy.yaml'), 'version: "2"\nsuccess: [\n')
  const broken = await exp(['init'], {cwd: repo})
  t.equal(broken.code, 2)
  t.match(broken.stderr, /^error: \.research\/policy\.yaml:3:1: /m)
  t.notMatch(broken.stdout, /exp is set up/)
})

t.test('stdin is read only for "-": piped input never fills a positional argument', async t => {
  const repo = tempDir(t)
  await git(repo, 'init', '-q', '-b', 'main')
  const line = (text: string) => `${JSON.stringify({kind: 'note', body: {text}})}\n`
  // before: oclif read stdin into the missing FILE argument, then `-` read an empty stdin
  const batch = await exp(['append', '--batch', '-', '--lane', 'x'], {cwd: repo, input: line('one')})
  t.equal(batch.code, 0, batch.stderr)
  t.match(batch.stdout, /^nt-[0-9a-f]{24}$/m)
  const kindOnly = await exp(['append', 'note', '--batch', '--lane', 'x'], {cwd: repo, input: '{"text":"two"}\n'})
  t.equal(kindOnly.code, 0, `FILE defaults to -: ${kindOnly.stderr}`)
  const lint = await exp(['skills', 'lint'], {cwd: repo, input: 'nosuch-folder\n'})
  t.match(lint.stderr, /unknown skills folder: .*skills$/m, 'a missing PATH is the default, not the piped text')
})

// Found attacking as another lane's owner: a note's text with terminal escapes and bidirectional
// formatting (U+202E) came through to every table and to `exp inspect` as it was
t.test("another lane's text cannot drive the terminal: control and bidirectional characters are never printed raw", async t => {
  const dir = tempDir(t)
  await git(dir, 'init', '-q', '-b', 'master')
  const r = await exp(['append', 'note', '-', '--lane', 'mallory'], {cwd: dir, input: JSON.stringify({text: 'evil \u001b[2J\u001b]0;owned\u0007 \u202eexe.pdf\u202c \u2066x\u2069'})})
  t.equal(r.code, 0, r.stderr)
  const id = r.stdout.trim()
  for (const args of [['ledger'], ['inspect', id], ['lanes']]) {
    const out = await exp(args, {cwd: dir})
    t.equal(out.code, 0, out.stderr)
    // eslint-disable-next-line no-control-regex
    t.notMatch(out.stdout, /[\u0000-\u0008\u000b-\u001f\u007f\u200e\u200f\u202a-\u202e\u2066-\u2069]/, `exp ${args[0]}: nothing but text and newlines`)
  }
  t.match((await exp(['inspect', id], {cwd: dir})).stdout, /\\u202e/, 'the body shows the character escaped')
})

t.test('every line a command prints for a person is plain text: control and bidirectional characters as \\u escapes', async t => {
  const {plainText} = await import('../../src/cli/plain.js')
  t.equal(plainText('a\tb\nc\r\nd'), 'a\tb\nc\nd', 'tab, newline and CRLF as they are')
  t.equal(plainText('PASS\rFAIL \u001b[2J \u0085 \u202ex'), 'PASS\\u000dFAIL \\u001b[2J \\u0085 \\u202ex')
  t.equal(plainText('a\u2028b\u2029c'), 'a\\u2028b\\u2029c', 'line and paragraph separators escaped (exp inspect showed them raw in a body)')
})

// Found by a new user: a misspelt field gave "body.text is required (+1 more)", and the one
// hidden was the misspelling itself
t.test('a misspelt field: the message names it first, with what is missing', async t => {
  const {tempDir, git} = await import('../helpers/repo.js')
  const {exp} = await import('../helpers/cli.js')
  const fs = await import('node:fs')
  const path = await import('node:path')
  const dir = tempDir(t)
  await git(dir, 'init', '-q', '-b', 'master')
  fs.writeFileSync(path.join(dir, 'f.yaml'), 'texx: hi\n')
  const r = await exp(['append', 'note', 'f.yaml'], {cwd: dir})
  t.equal(r.code, 2)
  t.match(r.stderr, 'error: f.yaml: note record is invalid: body.texx is not an allowed field; body.text is required\n')
})
