import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp} from '../helpers/cli.js'
import {git, makeRepo} from '../helpers/repo.js'

/**
 * A lane whose tip object is gone (a `git gc --prune=now` that raced an append, a broken
 * fetch): every view prints what it could read, names the lane on stderr and exits with the
 * integrity status (5), as `exp ledger` does; none of them exits 0 as if the view were whole.
 */
t.test('a lane that cannot be read: every view names it and exits 5, report keeps results/, inspect says where the id may be', async t => {
  const repo = await makeRepo(t)
  t.equal((await exp(['init', '--example', 'onboarding'], {cwd: repo})).code, 0)
  t.equal((await exp(['report'], {cwd: repo})).code, 0)
  const before = fs.readFileSync(path.join(repo, 'results', 'report.md'), 'utf8')
  const note = await exp(['append', 'note', '-', '--lane', 'bob'], {cwd: repo, input: 'text: x'})
  t.equal(note.code, 0, note.stderr)
  const id = note.stdout.trim()
  const tip = (await git(repo, 'rev-parse', 'refs/research/lanes/bob')).trim()
  fs.rmSync(path.join(repo, '.git/objects', tip.slice(0, 2), tip.slice(2)), {force: true})
  for (const args of [['hypotheses'], ['frontier'], ['graph'], ['attempt', 'list'], ['provenance', 'onboarding'], ['report']]) {
    const r = await exp([...args, '--json'], {cwd: repo})
    t.equal(r.code, 5, `exp ${args.join(' ')} exits with the integrity status: ${r.stderr}`)
    t.doesNotThrow(() => JSON.parse(r.stdout), `exp ${args.join(' ')} --json still prints valid JSON`)
    t.match(r.stderr, /1 lane\(s\) could not be read: refs\/research\/lanes\/bob/, `exp ${args.join(' ')} names the lane`)
    const plain = await exp(args, {cwd: repo})
    t.equal(plain.code, 5, `exp ${args.join(' ')} (without --json) too`)
  }
  t.equal(fs.readFileSync(path.join(repo, 'results', 'report.md'), 'utf8'), before, 'report leaves the whole report as it was')
  const r = await exp(['report'], {cwd: repo})
  t.match(r.stderr, /nothing written to results/)
  const ins = await exp(['inspect', id], {cwd: repo})
  t.equal(ins.code, 5, ins.stderr)
  t.notMatch(ins.stderr, /unknown record id/)
  t.match(ins.stderr, new RegExp(`record ${id} is not on the lanes that could be read; 1 lane\\(s\\) could not be read and may hold it: refs/research/lanes/bob`))
})
