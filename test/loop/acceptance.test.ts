import t from 'tap'
import {exp, expJson} from '../helpers/cli.js'
import {git} from '../helpers/repo.js'
import {evolvedExample} from '../helpers/evolve.js'

// The acceptance run of the issue, tried as a new user would: a fresh repository, the
// built-in example, ten iterations with the scripted agent. The built-in set grew to 100+
// scenarios; the run uses 2 repetitions per episode and up to 5 rules per proposal so that
// its episodes stay within the same budget (the assertions are unchanged).
t.test('exp evolve --iterations 10 raises held-out success by 30 points or more, with merge commits and decisions that say what decided them', async t => {
  // built once and shared with test/scenarios/fresh.test.ts (the same run, not run twice)
  const {repo, evolve: r} = await evolvedExample(t)
  t.ok(r.holdout_before >= 0.3 && r.holdout_before <= 0.6, `initial held-out ${r.holdout_before} within 30-60%`)
  t.ok(r.holdout_after - r.holdout_before >= 0.3, `held-out ${r.holdout_before} -> ${r.holdout_after}`)
  t.ok(r.promoted >= 1)
  t.equal(r.episodes_per_iteration.length, r.iterations.length, 'episodes reported per iteration')
  t.ok(r.reached.some(l => l.level === 0.85), 'and the episodes until each held-out level')
  for (const i of r.iterations) {
    const n = i.new_episodes!
    t.equal(n.train + n.validation + n.holdout, n.total, `iteration ${i.iteration}: episodes by split add up`)
    // the base of a later promotion is the skill an earlier one merged: its held-out episodes are reused
    if (i.iteration > 1 && i.holdout) t.ok(n.holdout <= 16 * 3, `iteration ${i.iteration}: only the candidate's held-out was run (${n.holdout})`)
  }
  t.ok(r.reached_85 && r.reached_85.episodes <= 1500, `85% held-out after ${r.reached_85?.episodes} episodes`)
  const merges = (await git(repo, 'rev-list', '--first-parent', '--min-parents=2', 'main')).trim().split('\n').filter(Boolean)
  t.equal(merges.length, r.promoted, 'every promotion is a merge commit on main')
  for (const m of merges) t.match(await git(repo, 'log', '-1', '--format=%B', m), /Exp-Promotes: pr-[0-9a-f]{24}\nExp-Evidence: .+\nExp-Policy: /)
  const decisions = await expJson<{body: {verdict: string; reasons: string[]; rejected_ref?: string; decided_by?: {name: string; detail: string}}}[]>(['ledger', '--kind', 'decision'], {cwd: repo})
  for (const d of decisions) t.ok(d.body.decided_by?.name && d.body.decided_by.detail, `the decision names the check that decided it: ${d.body.decided_by?.name}`)
  const rejected = decisions.filter(d => d.body.verdict === 'reject')
  t.equal(rejected.length, r.rejected)
  for (const d of rejected) t.ok(d.body.rejected_ref && (await git(repo, 'rev-parse', '--verify', d.body.rejected_ref)).trim(), 'the rejected patch stays reachable')
  t.equal((await exp(['fsck'], {cwd: repo})).code, 0)
})
