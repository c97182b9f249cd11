import t from 'tap'
import {GitRecordStore} from '../../src/store/index.js'
import {exp, expJson} from '../helpers/cli.js'
import {expBatch} from '../helpers/cli-batch.js'
import {git, handCommit, makeRepo} from '../helpers/repo.js'
import {sampleDraft} from '../helpers/records.js'
import {hypotheses} from '../../src/projections/index.js'

// read in process: the hypotheses command's own output is checked in the second test
async function status(cwd: string): Promise<string[]> {
  const s = await GitRecordStore.open(cwd)
  const list = hypotheses(await s.ledger(), new Date())
  await s.close()
  return list.map(h => h.status)
}

t.test('claim, release, retire and reopen: thin commands with clear refusals', async t => {
  const repo = await makeRepo(t)
  const s = await GitRecordStore.open(repo)
  const hyp = (await s.append(sampleDraft('hypothesis', 1), {lane: 'seed'})).id
  await s.close()
  const c = await expJson<{claim: string; holder: string; expires_at: string}>(['claim', hyp.slice(0, 8), '--lane', 'a', '--ttl', '600'], {cwd: repo})
  t.match(c, {holder: 'a', claim: /^cl-/})
  t.same(await status(repo), ['running'])
  const refused = await exp(['claim', hyp, '--lane', 'b'], {cwd: repo})
  t.equal(refused.code, 4)
  t.match(refused.stderr, `error: ${hyp} is claimed by a until ${c.expires_at}`)
  const notHeld = await exp(['release', hyp, '--lane', 'b'], {cwd: repo})
  t.equal(notHeld.code, 4)
  t.match(notHeld.stderr, /cannot release .*: it is not claimed by b\nhint: only the holder releases a claim; a holds it/)
  t.match((await exp(['release', hyp, '--lane', 'a', '--reason', 'done for today'], {cwd: repo})).stdout, new RegExp(`released ${hyp} \\(claim ${c.claim}\\) from a`))
  t.equal((await exp(['retire', hyp, '--reason', 'no effect in three tries', '--lane', 'a'], {cwd: repo})).code, 0)
  const retired = await exp(['claim', hyp, '--lane', 'b', '--json'], {cwd: repo})
  t.equal(retired.code, 4)
  t.match(JSON.parse(retired.stdout), {error: {code: 'E_STATE', hint: /exp reopen/}})
  t.equal((await exp(['reopen', hyp, '--reason', 'new workflow', '--lane', 'b'], {cwd: repo})).code, 0)
  t.same(await status(repo), ['proposed'])
  const unknown = await exp(['claim', 'hy-000000000000000000000000'], {cwd: repo, env: {EXP_LANE: 'x'}})
  t.equal(unknown.code, 3)
  t.match(unknown.stderr, /unknown hypothesis: hy-0{24}\nhint: list hypotheses with `exp hypotheses`/)
})

t.test('hypotheses, graph formats, frontier text, and fsck reporting an illegal transition', async t => {
  const repo = await makeRepo(t)
  const s = await GitRecordStore.open(repo)
  const hyp = (await s.append(sampleDraft('hypothesis', 2), {lane: 'a'})).id
  const prop = (await s.append({...sampleDraft('proposal', 1), body: {...(sampleDraft('proposal', 1).body as object), hypothesis: hyp}, cites: [hyp]} as never, {lane: 'a'})).id
  // an accept with validation evidence only: promotion without held-out evidence
  const ev = (await s.append({kind: 'evaluation', body: {...(sampleDraft('evaluation').body as object), role: 'candidate', proposal: prop}, cites: [prop]} as never, {lane: 'a'})).id
  const bad = (await s.append({kind: 'decision', body: {...(sampleDraft('decision').body as object), proposal: prop, verdict: 'accept', evaluations: [ev]}, cites: [prop, ev]} as never, {lane: 'a'})).id
  await s.close()
  // hand-made evidence cites no verification: it does not stand (docs/trust.md), so it counts for nothing and is said to be ignored
  // four read commands checked for what they print: one process (test/helpers/cli-batch.ts)
  const [table, graph, front, f, byLane, graphJson] = await expBatch([
    {args: ['hypotheses', '--status', 'active'], cwd: repo},
    {args: ['graph', '--format', 'dot'], cwd: repo},
    {args: ['frontier'], cwd: repo, env: {EXP_LANE: 'b'}},
    {args: ['fsck'], cwd: repo},
    // --lane, as every other command names a lane, is --agent-id here
    {args: ['frontier', '--lane', 'b'], cwd: repo},
    // --json prints the graph whatever --format says, and says so
    {args: ['graph', '--format', 'dot', '--json'], cwd: repo},
  ])
  t.equal(JSON.parse(graphJson!.stdout).schema_version, 'research_evidence_graph_v0')
  t.match(graphJson!.stderr, /--format dot is not used with --json, which prints the graph itself: drop --json for the dot diagram/)
  t.notMatch(graph!.stderr, /is not used with --json/)
  t.equal(byLane!.stdout, front!.stdout, 'frontier --lane b is the frontier of lane b')
  t.match(table!.stdout, new RegExp(`^ID +STATUS +LANE[^\\n]*\\n${hyp} +active +a +0`))
  t.match(table!.stderr, /2 evaluation\(s\) or decision\(s\) do not stand and were ignored/)
  t.match(graph!.stdout, new RegExp(`^digraph evidence \\{[\\s\\S]*"${prop}" -> "${hyp}" \\[label="tests"\\]`))
  t.match(front!.stdout, new RegExp(`agent b\\nselected  ${hyp}  run_dev_attempt`))
  t.equal(f!.code, 5)
  t.match(f!.stdout, new RegExp(`refs/research/lanes/a [0-9a-f]{12}: promoted_without_holdout: decision ${bad} accepts`))
  t.match(f!.stdout, new RegExp(`forged_evaluation: ${ev}: its manifest mf-0+ is not in the ledger`))
  t.match(f!.stdout, new RegExp(`forged_decision: ${bad}: it rests on evaluation ${ev}, which does not stand`))
  t.match(f!.stderr, /3 problems; 1 hypothesis replayed/)
})

// fsck reported records naming a hypothesis that is not in the ledger (unknown_hypothesis), but
// not a hypothesis whose `parent` named one: exp graph drew a `refines` edge to nothing, fsck clean.
t.test('fsck reports a hypothesis whose parent is not a hypothesis in the ledger, as it does other records naming one', async t => {
  const repo = await makeRepo(t)
  const s = await GitRecordStore.open(repo)
  const base = sampleDraft('hypothesis', 4)
  const parent = (await s.append(base, {lane: 'a'})).id
  const withParent = (n: number, p: string) => ({...base, body: {...(base.body as object), statement: `refinement ${n}`, parent: p}}) as never
  await s.append(withParent(1, parent), {lane: 'a'})
  const unknown = 'hy-0123456789abcdef01234567'
  const orphan = (await s.append(withParent(2, unknown), {lane: 'b'})).id
  await s.close()
  const f = await exp(['fsck', '--json'], {cwd: repo})
  t.equal(f.code, 5, f.stderr)
  const problems = (JSON.parse(f.stdout) as {error: {data: {problems: {code: string; id: string; ref: string; message: string}[]}}}).error.data.problems
  t.same(problems.map(p => [p.code, p.id, p.ref]), [['unknown_hypothesis', orphan, 'refs/research/lanes/b']], 'the orphan only: a parent that is in the ledger is fine')
  t.match(problems[0]!.message, `hypothesis ${orphan} names ${unknown} as its parent, which is not a hypothesis in the ledger`)
})

t.test('another lane holding the key of a retire note (and its lane-salted form) cannot refuse the lane its retire or reopen', async t => {
  const repo = await makeRepo(t)
  const s = await GitRecordStore.open(repo)
  const hyp = (await s.append(sampleDraft('hypothesis', 3), {lane: 'seed'})).id
  // notes that name nothing, under the keys lane a's retire and reopen would use
  for (const key of [`retire/${hyp}/a/0`, `retire/${hyp}/a/0@a`, `reopen/${hyp}/a/1`, `reopen/${hyp}/a/1@a`]) await s.append({kind: 'note', key, body: {text: 'mine now'}, cites: []}, {lane: 'mallory'})
  await s.close()
  const retired = await exp(['retire', hyp, '--reason', 'no effect', '--lane', 'a', '--json'], {cwd: repo})
  t.equal(retired.code, 0, retired.stderr)
  t.same(await status(repo), ['retired'])
  const reopened = await exp(['reopen', hyp, '--reason', 'new data', '--lane', 'a', '--json'], {cwd: repo})
  t.equal(reopened.code, 0, reopened.stderr)
  t.same(await status(repo), ['proposed'])
  // the notes are lane a's and name the hypothesis
  const s2 = await GitRecordStore.open(repo)
  const ledger = await s2.ledger()
  for (const id of [JSON.parse(retired.stdout).note, JSON.parse(reopened.stdout).note]) t.match(ledger.get(id), {lane: 'a', kind: 'note'})
  await s2.close()
})

// A retire or reopen that a record of another lane ordered after it leaves without effect (a
// lane whose clock is past the bound this lane's appends count from) was refused with E_STATE
// only after its note was written: the failed command left a note in the append-only ledger,
// and it made the honest reopen of the lane it came before a problem (reopen_not_retired).
t.test('a retire or reopen refused as ineffective writes nothing', async t => {
  const repo = await makeRepo(t)
  const s = await GitRecordStore.open(repo)
  const hyp = (await s.append(sampleDraft('hypothesis', 5), {lane: 'alice'})).id
  await s.close()
  // another lane's tip at the bound: alice counts on past it, bob's appends do not see alice's clock
  const CLOCK_MAX = Number.MAX_SAFE_INTEGER - 2 ** 32
  await handCommit(repo, 'mallory', 'x.json', '{}\n', `note: at the bound\n\nExp-Record: note/nt-${'3'.repeat(24)}\nExp-Schema: note@1\nExp-Lamport: ${CLOCK_MAX}\n`)
  for (const [cmd, reason] of [['retire', 'r'], ['reopen', 'o'], ['retire', 'r again']]) t.equal((await exp([cmd!, hyp, '--reason', reason!, '--lane', 'alice'], {cwd: repo})).code, 0)
  const count = async () => (await expJson<unknown[]>(['ledger'], {cwd: repo})).length
  const before = await count()
  const refused = await exp(['reopen', hyp, '--reason', 'o', '--lane', 'bob', '--json'], {cwd: repo})
  t.equal(refused.code, 4, refused.stderr)
  t.match(JSON.parse(refused.stdout), {error: {code: 'E_STATE', hint: /would be ordered at lamport \d+, before a record of another lane .* nothing was recorded/}})
  t.equal(await count(), before, 'the ledger holds as many records as before')
  t.equal((await git(repo, 'for-each-ref', 'refs/research/lanes/bob')).trim(), '', 'and bob has no lane')
  t.same(await status(repo), ['retired'])
  const f = await exp(['fsck'], {cwd: repo})
  t.notMatch(f.stdout, /reopen_not_retired/, "alice's own reopen stays in order")
})
