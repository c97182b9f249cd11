import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp} from '../helpers/cli.js'
import {oneIterationAsAlice} from '../helpers/evolve.js'
import {git} from '../helpers/repo.js'

// Found by an attack sweep: with one damaged object (the tip of the lane that holds the
// manifests), `exp fsck` reported the honest held-out evaluations as forged_evaluation and the
// honest promotion as unverified_promotion, beside the lane-unreadable problem, with nothing
// to tell a damaged repository from an attacked one.

t.test('evidence on a lane that cannot be read is named unverifiable until the lane is repaired', async t => {
  const repo = await oneIterationAsAlice(t)
  const clean = await exp(['fsck', '--json'], {cwd: repo})
  t.equal(clean.code, 0, clean.stdout + clean.stderr)
  const tip = (await git(repo, 'rev-parse', 'refs/research/lanes/alice')).trim()
  const file = path.join(repo, '.git', 'objects', tip.slice(0, 2), tip.slice(2))
  t.ok(fs.existsSync(file), 'the lane tip is a loose object')
  fs.chmodSync(file, 0o644)
  fs.writeFileSync(file, 'garbage')

  const r = await exp(['fsck', '--json'], {cwd: repo})
  t.equal(r.code, 5, r.stderr)
  const problems = (JSON.parse(r.stdout) as {error: {data: {problems: {code: string; message: string; hint?: string; class?: string}[]}}}).error.data.problems
  t.ok(problems.some(p => p.code === 'lane-unreadable'), 'the damage is named')
  const trust = problems.filter(p => p.class)
  t.ok(trust.length > 0, 'the evidence that could not be checked is listed')
  for (const p of trust) {
    t.match(p.message, /unverifiable until 1 lane that cannot be read, refs\/research\/lanes\/alice, is repaired/, `${p.code} says why it may not be what it looks like`)
    t.match(p.hint, /repair the unreadable lanes first/)
  }
})
