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
})

t.test('exp demo makes a SHA-1 repository even where git makes SHA-256 ones by default', async t => {
  const home = tempDir(t)
  fs.writeFileSync(path.join(home, '.gitconfig'), '[init]\n\tdefaultObjectFormat = sha256\n[user]\n\tname = a\n\temail = a@b.invalid\n')
  const dir = path.join(tempDir(t), 'demo')
  const r = await expJson<{evolve: {iterations: unknown[]}}>(['demo', '--dir', dir, '-n', '1'], {cwd: home, env: {HOME: home, XDG_CONFIG_HOME: path.join(home, '.config')}})
  t.equal(r.evolve.iterations.length, 1)
  t.equal((await git(dir, 'rev-parse', '--show-object-format')).trim(), 'sha1')
})
