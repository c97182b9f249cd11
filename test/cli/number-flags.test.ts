import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp} from '../helpers/cli.js'
import {expBatch} from '../helpers/cli-batch.js'
import {git, makeRepo} from '../helpers/repo.js'

/**
 * A seed is what makes a run repeatable: one beyond 2^53 - 1 was stored rounded
 * (--seed 99999999999999999999 as 1e20), and a negative one was taken as given. Every number
 * flag is refused out of that range, naming the flag; seeds are refused below 0, and so is a
 * seed of .research/config.yaml that is either.
 */
t.test('--seed (and any number flag) beyond 2^53 - 1 or a negative seed: a usage error naming the flag, nothing written', async t => {
  const repo = await makeRepo(t)
  t.equal((await exp(['init', '--example', 'onboarding'], {cwd: repo})).code, 0)
  const huge = '99999999999999999999'
  const cases: [string[], RegExp][] = [
    [['run', 'train', '--seed', huge], /^error: --seed: 99999999999999999999 is out of range: a whole number from 0 to 9007199254740991/m],
    // (a flag's own bounds: --repeat is at least 1, not -2^53)
    [['run', 'train', '--repeat', '9007199254740992'], /^error: --repeat: 9007199254740992 is out of range: a whole number from 1 to 9007199254740991 \(2\^53 - 1\)/m],
    [['ledger', '--since', huge], /^error: --since: 99999999999999999999 is out of range: a whole number from (-9007199254740991|0|1) to 9007199254740991/m],
    [['evolve', '-n', '1', '--seed', huge], /^error: --seed: 99999999999999999999 is out of range/m],
    [['attempt', 'new', 'skills', '--seed', huge], /^error: --seed: 99999999999999999999 is out of range/m],
    [['matrix', '--seed', huge], /^error: --seed: 99999999999999999999 is out of range/m],
    [['ledger', '--limit', huge], /^error: --limit: 99999999999999999999 is out of range/m],
    [['run', 'train', '--seed=-1'], /^error: --seed: expected an integer greater than or equal to 0 but received: -1/m],
    [['attempt', 'new', 'skills', '--seed=-5'], /^error: --seed: expected an integer greater than or equal to 0/m],
  ]
  const results = await expBatch(cases.map(([args]) => ({args, cwd: repo})))
  cases.forEach(([args, what], i) => {
    const r = results[i]!
    t.equal(r.code, 2, `exp ${args.join(' ')}: ${r.stderr}`)
    t.match(r.stderr, what, `exp ${args.join(' ')}`)
  })
  t.equal((await git(repo, 'for-each-ref', 'refs/research')).trim(), '', 'nothing was recorded')
  const cfg = path.join(repo, '.research/config.yaml')
  const text = fs.readFileSync(cfg, 'utf8')
  // (an integer literal beyond 2^53 is refused where it stands, before it is read rounded;
  // a number written otherwise, as a float, reaches the schema's bound)
  fs.writeFileSync(cfg, text.replace(/^seed: 42$/m, `seed: ${huge}`))
  const r = await exp(['run', 'train'], {cwd: repo})
  t.equal(r.code, 2, r.stderr)
  t.match(r.stderr, new RegExp(`\\.research/config\\.yaml:\\d+:7: ${huge} is an integer beyond 2\\^53`))
  fs.writeFileSync(cfg, text.replace(/^seed: 42$/m, 'seed: 1.0e+20'))
  const f = await exp(['run', 'train'], {cwd: repo})
  t.equal(f.code, 2, f.stderr)
  t.match(f.stderr, /\.research\/config\.yaml.*seed must be <= 9007199254740991/)
})
