import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {execFileSync} from 'node:child_process'
import {BIN, exp, expJson} from '../helpers/cli.js'
import {sampleDraft} from '../helpers/records.js'
import {exampleRepo} from '../helpers/evolve.js'
import {smallExampleRepo} from '../helpers/loop-example.js'
import {git, GIT_ENV} from '../helpers/repo.js'
import {GitRecordStore, type Ledger} from '../../src/store/index.js'
import {GitWorkspace} from '../../src/workspace/git.js'
import {hypotheses} from '../../src/projections/index.js'
import {runContext} from '../../src/cli/run-context.js'
import {evolve} from '../../src/loop/evolve.js'
import {deterministicMine} from '../../src/loop/mine-step.js'

interface Lane {
  lane: string
  iterations: {proposal?: {id: string}; decision?: {verdict: string; merge?: string}; rebased?: {proposal: string; reason: string}[]; blocked?: {hypothesis: string; holder: string}[]}[]
}

/** Candidate evaluations by proposal: which lanes recorded them. */
function candidateLanes(ledger: Ledger): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>()
  for (const e of ledger.select({kinds: ['evaluation']})) {
    const b = ledger.load<'evaluation'>(e).body
    if (b.role !== 'candidate' || !b.proposal) continue
    const lanes = out.get(b.proposal) ?? new Set<string>()
    lanes.add(e.lane)
    out.set(b.proposal, lanes)
  }
  return out
}

// The first two tests run on the small example (a third of the built-in scenarios,
// test/helpers/loop-example.ts): how lanes share hypotheses and retire stale candidates does
// not depend on how many scenarios there are. The third needs a promotion: the full example.
t.test('two evolve lanes at once on one repository: different hypotheses, no candidate evaluated twice, claims given back, fsck clean', async t => {
  const repo = await smallExampleRepo(t)
  // small candidates (3 rules), so that both lanes find work of their own in two iterations
  const args = (lane: string) => ['evolve', '-n', '2', '--train-repeat', '2', '--eval-repeat', '2', '--max-rules', '3', '--lane', lane, '--events', `${lane}.jsonl`]
  const [a, b] = await Promise.all([expJson<Lane>(args('a'), {cwd: repo}), expJson<Lane>(args('b'), {cwd: repo})])
  t.same([a.lane, b.lane], ['a', 'b'])
  const fsck = await exp(['fsck'], {cwd: repo})
  t.equal(fsck.code, 0, fsck.stdout)

  const s = await GitRecordStore.open(repo)
  t.teardown(() => s.close())
  const ledger = await s.ledger()
  // every candidate was evaluated by one lane only, and its episodes were recorded once
  const byProposal = candidateLanes(ledger)
  t.ok(byProposal.size >= 2, `${byProposal.size} candidates evaluated`)
  for (const [p, lanes] of byProposal) t.equal(lanes.size, 1, `${p} evaluated by ${[...lanes].join(', ')}`)
  const candidateManifests = new Set(ledger.select({kinds: ['evaluation']}).map(e => ledger.load<'evaluation'>(e).body).filter(b => b.role === 'candidate').map(b => b.manifest))
  const dupTraces = ledger.duplicates.filter(d => d.kind === 'trace' && candidateManifests.has(ledger.load<'trace'>(d.id).body.manifest))
  t.same(dupTraces.map(d => d.id), [], 'no candidate episode recorded twice')
  // the lanes worked on different hypotheses
  const hypOf = (p: string) => ledger.load<'proposal'>(p).body.hypothesis
  const mine = (l: Lane) => new Set(l.iterations.flatMap(i => [...(i.proposal ? [i.proposal.id] : []), ...(i.rebased ?? []).map(r => r.proposal)]).map(hypOf))
  const [ha, hb] = [mine(a), mine(b)]
  t.same([...ha].filter(h => hb.has(h)), [], 'no hypothesis taken by both lanes')
  // nothing is left claimed; every promotion is a merge on main's first-parent line
  const views = hypotheses(ledger, new Date())
  t.same(views.filter(h => h.claim).map(h => `${h.id} held by ${h.claim!.holder}`), [], 'every claim given back')
  const firstParent = new Set((await git(repo, 'rev-list', '--first-parent', 'main')).trim().split('\n'))
  for (const l of [a, b]) for (const i of l.iterations) if (i.decision?.merge) t.ok(firstParent.has(i.decision.merge), `${l.lane}'s merge ${i.decision.merge.slice(0, 8)} is on main`)
  // a stale candidate was retired with its reason, never promoted onto a main it was not judged against
  for (const l of [a, b]) for (const i of l.iterations) for (const r of i.rebased ?? []) t.match(r.reason, /main moved from \w+ to \w+ while/)

  // each lane wrote its own event stream: the loop's events around the runs'
  for (const lane of ['a', 'b']) {
    const events = fs.readFileSync(path.join(repo, `${lane}.jsonl`), 'utf8').trim().split('\n').map(l => JSON.parse(l) as {event: string; run: string; iteration?: number})
    const names = new Set(events.map(e => e.event))
    for (const n of ['iteration_scheduled', 'recall_completed', 'run_started', 'attempt_recorded', 'verification_completed', 'run_completed', 'loop_completed']) t.ok(names.has(n), `${lane}: ${n}`)
    t.ok(names.has('knowledge_promoted') || names.has('knowledge_rejected'), `${lane}: a decision event`)
    t.equal(events.at(-1)!.event, 'loop_completed')
    t.match(events.at(-1)!.run, new RegExp(`^evolve/${lane}/`))
    t.ok(events.filter(e => e.event === 'attempt_recorded').every(e => e.iteration === undefined || e.iteration >= 1))
  }
})

t.test('a candidate whose base went stale is retired with the reason, never promoted, and its claim given back', async t => {
  const repo = await smallExampleRepo(t)
  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  const {options, mainRef} = await runContext(store, repo, {lane: 'b'})
  let moved: string | undefined
  const res = await evolve(store, new GitWorkspace(store), {
    ...options,
    skill: 'onboarding',
    mainRef,
    iterations: 1,
    trainRepeat: 2,
    evalRepeat: 2,
    recall: {items: 8, tokens: 1200},
    mine: deterministicMine,
    // another lane lands the very same lines on main while this one evaluates
    onStep: step => {
      if (step !== 'iteration 1: promote' || moved) return
      const branch = execFileSync('git', ['for-each-ref', '--format=%(refname:short)', 'refs/heads/exp/proposal/'], {cwd: repo, env: GIT_ENV, encoding: 'utf8'}).trim()
      execFileSync('git', ['checkout', branch, '--', 'skills/onboarding/SKILL.md'], {cwd: repo, env: GIT_ENV})
      execFileSync('git', ['commit', '-qm', 'lane a: the same lines, promoted first'], {cwd: repo, env: GIT_ENV})
      moved = branch.replace('exp/proposal/', '')
      // and another lane writes a decision that cites the candidate (found by an attack sweep:
      // any decision citing it passed for this run's own, and the rebase was skipped)
      const forged = sampleDraft('decision')
      execFileSync('node', [BIN, 'append', '--batch', '-', '--lane', 'evil'], {cwd: repo, env: GIT_ENV, input: `${JSON.stringify({...forged, body: {...(forged.body as object), evaluations: []}, cites: [moved]})}\n`})
    },
  })
  t.ok(moved, 'main moved under the candidate')
  const it = res.iterations[0]!
  t.equal(it.decision, undefined, 'no decision: the candidate was never judged against the new main')
  t.equal(it.rebased?.[0]?.proposal, moved)
  t.match(it.rebased?.[0]?.reason, /main moved from \w+ to \w+ while b evaluated it; main already follows it/)
  const ledger = await store.ledger()
  t.same(ledger.select({kinds: ['decision']}).filter(e => e.lane !== 'evil'), [], 'nothing promoted or rejected')
  const h = hypotheses(ledger, new Date()).find(v => v.proposals.includes(moved!))!
  t.equal(h.status, 'retired')
  t.equal(h.claim, undefined, 'the claim was given back')
  // (the one problem fsck finds is the other lane's forged decision)
  const fsck = await exp(['fsck'], {cwd: repo})
  t.same(fsck.stdout.split('\n').filter(l => /^refs\//.test(l) && !l.startsWith('refs/research/lanes/evil ')), [], fsck.stdout)
  t.match(fsck.stdout, /refs\/research\/lanes\/evil \w+: forged_decision/)
})

t.test('a lane that builds the hypothesis another lane already promoted leaves it and goes on, instead of failing', async t => {
  const repo = await exampleRepo(t)
  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  const start = (await git(repo, 'rev-parse', 'HEAD')).trim()
  const run = async (lane: string) => {
    const {options, mainRef} = await runContext(store, repo, {lane})
    return evolve(store, new GitWorkspace(store), {...options, skill: 'onboarding', mainRef, iterations: 1, trainRepeat: 2, evalRepeat: 2, recall: {items: 8, tokens: 1200}, mine: deterministicMine})
  }
  const a = await run('a')
  t.equal(a.iterations[0]!.decision?.verdict, 'accept', 'lane a promoted its candidate')
  const promoted = hypotheses(await store.ledger(), new Date()).filter(h => h.status === 'promoted').map(h => h.id)
  t.equal(promoted.length, 1)
  // lane b saw main before a's merge: it builds on the old tip, from the same knowledge
  execFileSync('git', ['reset', '-q', '--hard', start], {cwd: repo, env: GIT_ENV})
  const b = await run('b')
  const it = b.iterations[0]!
  t.ok(it.blocked?.some(x => x.hypothesis === promoted[0] && /promoted/.test(x.why ?? '')), `the promoted hypothesis is named as taken: ${JSON.stringify(it.blocked)}`)
  const fsck = await exp(['fsck'], {cwd: repo})
  t.equal(fsck.code, 0, fsck.stdout)
})
