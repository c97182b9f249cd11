import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp, expJson, ROOT} from '../helpers/cli.js'
import {makeRepo} from '../helpers/repo.js'

// A held-out scenario with a typo did not parse, so `exp seal` (which picks files that parse
// as split: holdout) said "nothing new to seal" and left it in the work tree in the clear; when
// something else was sealed it suggested `git add -A scenarios && git commit`, committing it.

const VAL = fs.readdirSync(path.join(ROOT, 'scenarios')).filter(f => f.startsWith('val-')).sort()[0]!
const held = (id: string, extra = '') => fs.readFileSync(path.join(ROOT, 'scenarios', VAL), 'utf8').replace(/^id: .*$/m, `id: ${id}`).replace(/^split: validation$/m, 'split: holdout') + extra

t.test('exp seal refuses held-out-looking files that do not parse, naming file:line, and writes nothing', async t => {
  const repo = await makeRepo(t)
  const dir = path.join(repo, 'scenarios')
  fs.mkdirSync(dir)
  fs.writeFileSync(path.join(dir, 'hold-good.yaml'), held('hold-good'))
  // a typo'd field; a file whose split says holdout under another name; one named hold- whose YAML is broken
  fs.writeFileSync(path.join(dir, 'hold-typo.yaml'), held('hold-typo', 'max_step: 30\n'))
  fs.writeFileSync(path.join(dir, 'secret-task.yaml'), held('secret-task', 'gold: [\n'))
  fs.writeFileSync(path.join(dir, 'hold-broken.yaml'), 'id: hold-broken\nsplit: [holdout\n')
  const before = fs.readdirSync(dir).sort()

  const r = await exp(['seal'], {cwd: repo})
  t.equal(r.code, 2, 'non-zero exit')
  t.match(r.stderr, /error: 3 file\(s\) look like held-out scenarios .* but do not parse, so they cannot be sealed and would stay in the work tree in the clear; nothing was sealed, removed or written/)
  t.match(r.stderr, /scenarios\/hold-typo\.yaml:\d+: unknown field "max_step"/)
  t.match(r.stderr, /scenarios\/secret-task\.yaml:\d+(:\d+)?: YAML/)
  t.match(r.stderr, /scenarios\/hold-broken\.yaml:\d+(:\d+)?: YAML/)
  t.match(r.stderr, /hint: fix each file:line .* then run `exp seal` again/)
  t.notMatch(r.stdout, /git add/, 'no suggestion to commit the folder')
  t.same(fs.readdirSync(dir).sort(), before, 'nothing sealed or removed')
  t.notOk(fs.existsSync(path.join(repo, '.git', 'exp', 'holdout.key')), 'no key written')

  // lint and list say which files hold held-out tasks unsealed
  const lint = await exp(['scenarios', 'lint'], {cwd: repo})
  t.match(lint.stderr, /warning: scenarios\/hold-typo\.yaml looks like a held-out scenario .* and does not parse: it is not sealed/)
  t.match(lint.stderr, /warning: scenarios\/secret-task\.yaml looks like a held-out scenario/)
  const list = await exp(['scenarios', 'list'], {cwd: repo})
  t.match(list.stderr, /warning: scenarios\/hold-broken\.yaml looks like a held-out scenario/)

  // fixed (and the one that is no scenario moved away): sealed, every plain held-out file removed
  fs.writeFileSync(path.join(dir, 'hold-typo.yaml'), held('hold-typo'))
  fs.writeFileSync(path.join(dir, 'secret-task.yaml'), held('secret-task'))
  fs.rmSync(path.join(dir, 'hold-broken.yaml'))
  const ok = await expJson<{sealed: string[]; removed: string[]}>(['seal'], {cwd: repo})
  t.same(ok.removed, ['scenarios/hold-good.yaml', 'scenarios/hold-typo.yaml', 'scenarios/secret-task.yaml'])
  t.same(fs.readdirSync(dir), ['holdout.sealed'])

  // a valid held-out file beside the sealed one: runs ignore it, lint says so
  fs.writeFileSync(path.join(dir, 'hold-late.yaml'), held('hold-late'))
  const beside = await expJson<{unsealed: {file: string; kind: string}[]}>(['scenarios', 'lint'], {cwd: repo})
  t.match(beside.unsealed, [{file: /hold-late\.yaml$/, kind: 'beside-sealed'}])
})
