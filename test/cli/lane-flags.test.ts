import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {ROOT} from '../helpers/cli.js'
import {expBatch} from '../helpers/cli-batch.js'
import {git, makeRepo} from '../helpers/repo.js'

interface ManifestCommand {
  flags: Record<string, {name: string; aliases?: string[]; required?: boolean}>
  args: Record<string, {name: string; required?: boolean}>
}

/**
 * Every flag that names a lane (--lane, and frontier's --agent-id) goes through the one lane
 * name check: `frontier --lane ../x` was echoed as an agent name where `ledger` and `append`
 * refused it. Found from the manifest, so a command added later is checked too.
 */
t.test('every --lane of every command refuses a name that is no lane, before doing anything', async t => {
  const repo = await makeRepo(t)
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, ManifestCommand>}
  const withLane = Object.entries(manifest.commands).filter(([, c]) => Object.values(c.flags).some(f => f.name === 'lane' || f.aliases?.includes('lane')))
  t.ok(withLane.some(([id]) => id === 'frontier'), 'frontier has one (an alias of --agent-id)')
  t.ok(withLane.length >= 15)
  const cases = withLane.flatMap(([id, c]) => {
    const args = [...Object.values(c.args).filter(a => a.required).map(() => 'x'), ...Object.values(c.flags).filter(f => f.required).map(f => `--${f.name}=x`)]
    return ['../x', '-rf'].map(lane => ({args: [...id.split(':'), ...args, `--lane=${lane}`], cwd: repo}))
  })
  const results = await expBatch(cases)
  cases.forEach((c, i) => {
    const r = results[i]!
    t.equal(r.code, 2, `exp ${c.args.join(' ')}: ${r.stderr}`)
    t.match(r.stderr, /^error: invalid lane name \(--lane\) "(\.\.\/x|-rf)"/m, `exp ${c.args.join(' ')} names the flag and the value`)
  })
  t.equal((await git(repo, 'for-each-ref', 'refs/research')).trim(), '', 'nothing was written')
  const json = await expBatch([{args: ['frontier', '--agent-id', '../x', '--json'], cwd: repo}])
  t.equal(json[0]!.code, 2)
  t.match(JSON.parse(json[0]!.stdout), {error: {code: 'E_INVALID_NAME'}})
})

/**
 * The error names where the bad lane name came from: the flag as it was typed (frontier's
 * --agent-id or its alias --lane), EXP_LANE, or `git config exp.lane`. An invalid EXP_LANE
 * said only "invalid lane name", and `--agent-id 'a b'` said "(--lane)".
 */
t.test('a lane name that is no lane: the error names the flag typed, EXP_LANE or exp.lane', async t => {
  const repo = await makeRepo(t)
  const cases = [
    {args: ['frontier', '--agent-id', 'a b'], cwd: repo, want: /invalid lane name \(--agent-id\) "a b"/},
    {args: ['frontier', '--lane=a b'], cwd: repo, want: /invalid lane name \(--lane\) "a b"/},
    {args: ['append', 'note', '-'], cwd: repo, input: '{"text":"x"}', env: {EXP_LANE: '../up'}, want: /invalid lane name \(EXP_LANE\) "\.\.\/up"/},
  ]
  const results = await expBatch(cases)
  cases.forEach((c, i) => {
    t.equal(results[i]!.code, 2, `exp ${c.args.join(' ')}: ${results[i]!.stderr}`)
    t.match(results[i]!.stderr, c.want, c.args.join(' '))
  })
  await git(repo, 'config', 'exp.lane', 'has space')
  const [r] = await expBatch([{args: ['append', 'note', '-'], cwd: repo, input: '{"text":"x"}'}])
  t.equal(r!.code, 2, r!.stderr)
  t.match(r!.stderr, /invalid lane name \(git config exp\.lane\) "has space"/)
  t.equal((await git(repo, 'for-each-ref', 'refs/research')).trim(), '', 'nothing was written')
})
