import t, {type Test} from 'tap'
import {execFileSync} from 'node:child_process'
import {GitRecordStore, discoverRepo, type RecordStore} from '../../src/store/index.js'
import {GitWorkspace} from '../../src/workspace/git.js'
import {candidateKey, createProposal, type ProposeOptions} from '../../src/loop/proposal.js'
import {claimFor, type LaneWork} from '../../src/loop/lanes.js'
import {initResearch} from '../../src/research/init.js'
import {addExample} from '../../src/research/example.js'
import {recordId, type RecordDraft} from '../../src/records/index.js'
import type {ProposalBody} from '../../src/records/types.js'
import {CandidateTakenError} from '../../src/errors/index.js'
import {BAD} from '../helpers/promotions.js'
import {knowledge} from '../helpers/loop.js'
import {makeRepo, GIT_ENV} from '../helpers/repo.js'
import {sampleDraft} from '../helpers/records.js'

// Another lane's owner against the proposer: the same patch on the same base is one
// candidate, built once, under a key anyone can compute. A record written first under that
// key, or a reject written for that patch, must not take the candidate from a lane for good.

const NOW = () => new Date('2026-12-01T12:00:00.000Z')

async function setup(t: Test) {
  const repo = await makeRepo(t)
  await initResearch(discoverRepo(repo))
  await addExample(discoverRepo(repo), 'onboarding')
  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  await store.append({kind: 'knowledge', body: knowledge(BAD), cites: []}, {lane: 'me', now: NOW})
  return {repo, store, ws: new GitWorkspace(store)}
}

const options = (lane: string, extra: Partial<ProposeOptions> = {}): ProposeOptions => ({skill: 'onboarding', lane, mainRef: 'refs/heads/main', recall: {items: 8, tokens: 1200}, maxRules: 1, now: NOW, ...extra})
const work = (store: RecordStore, lane: string, now = NOW): LaneWork => ({store, lane, ttlSeconds: 3600, now})

/**
 * What the honest lane's proposal draft will be: createProposal run for `lane` up to the
 * proposal's append, which is caught (the recall, hypothesis and branch it wrote stay: the
 * attacker's lane has them).
 */
async function predicted(store: GitRecordStore, ws: GitWorkspace, lane: string): Promise<RecordDraft<'proposal'>> {
  let draft: RecordDraft<'proposal'> | undefined
  const spy = new Proxy(store, {
    get(target, p) {
      if (p === 'append') {
        return async (d: RecordDraft, o: Parameters<RecordStore['append']>[1]) => {
          if (d.kind === 'proposal') {
            draft = d as RecordDraft<'proposal'>
            throw new Error('captured')
          }
          return target.append(d, o)
        }
      }
      const v = Reflect.get(target, p, target) as unknown
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v
    },
  })
  await createProposal(spy, ws, await store.ledger(), options(lane)).catch(() => undefined)
  if (!draft) throw new Error('no proposal draft')
  return draft
}

/** The attacker's lane: the honest lane's candidate under its key, from a hypothesis of its own, with no branch behind it. */
async function squat(t: Test, store: GitRecordStore, ws: GitWorkspace): Promise<{key: string; id: string; hypothesis: string}> {
  const draft = await predicted(store, ws, 'evil')
  const hypothesis = (await store.append({...sampleDraft('hypothesis', 7), cites: []}, {lane: 'evil', now: NOW})).id
  const body: ProposalBody = {...draft.body, hypothesis, branch: 'exp/proposal/nowhere'}
  const id = (await store.append({kind: 'proposal', key: draft.key!, body, cites: [body.recall, hypothesis]}, {lane: 'evil', now: NOW})).id
  t.equal(id, recordId('proposal', '', draft.key!))
  return {key: draft.key!, id, hypothesis}
}

t.test('a proposal record another lane wrote first under the candidate key does not take the candidate', async t => {
  const {repo, store, ws} = await setup(t)
  const squatted = await squat(t, store, ws)
  const mine = await createProposal(store, ws, await store.ledger(), options('b', {claim: h => claimFor(work(store, 'b'), h)}))
  t.ok(mine, 'lane b built the candidate')
  t.not(mine!.proposal, squatted.id, 'under a key of its own')
  const ledger = await store.ledger()
  t.equal(ledger.get(mine!.proposal)?.lane, 'b')
  const body = ledger.load<'proposal'>(mine!.proposal).body
  t.equal(body.patch.normalized, ledger.load<'proposal'>(squatted.id).body.patch.normalized, 'the same patch')
  t.equal(body.branch, `exp/proposal/${mine!.proposal}`)
  t.equal(execFileSync('git', ['rev-parse', `refs/heads/${body.branch}`], {cwd: repo, env: GIT_ENV, encoding: 'utf8'}).trim(), mine!.head, 'its branch is at its head')
  // a rerun finds its own proposal again (idempotent), not another key
  const again = await createProposal(store, ws, await store.ledger(), options('b', {claim: h => claimFor(work(store, 'b'), h)}))
  t.equal(again?.proposal, mine!.proposal)
})

t.test('the candidate stays the other lane\'s while it holds a live claim of the hypothesis its proposal names, and is free once the claim lapses', async t => {
  const {store, ws} = await setup(t)
  const squatted = await squat(t, store, ws)
  await claimFor(work(store, 'evil'), squatted.hypothesis)
  const err = await createProposal(store, ws, await store.ledger(), options('b', {claim: h => claimFor(work(store, 'b'), h)})).catch(e => e as Error)
  t.type(err, CandidateTakenError)
  t.match((err as CandidateTakenError).data, {holder: 'evil', proposal: squatted.id})
  // two hours later the one-hour claim has lapsed: the record alone takes nothing
  const later = () => new Date(NOW().getTime() + 2 * 3600_000)
  const mine = await createProposal(store, ws, await store.ledger(), options('b', {now: later, claim: h => claimFor(work(store, 'b', later), h)}))
  t.ok(mine && mine.proposal !== squatted.id, 'built under its own key')
  // the squatter claims again: a rerun of lane b still finds its own proposal, under its own key
  await claimFor(work(store, 'evil', later), squatted.hypothesis)
  const rerun = await createProposal(store, ws, await store.ledger(), options('b', {now: later, claim: h => claimFor(work(store, 'b', later), h)}))
  t.equal(rerun?.proposal, mine!.proposal, 'a rerun is not stopped by a claim that came after')
})

t.test('a reject another lane wrote with no evidence does not keep the proposer from the patch', async t => {
  const {store, ws} = await setup(t)
  const squatted = await squat(t, store, ws)
  // the attacker rejects its own copy of the candidate: no evaluation behind it
  const reject = sampleDraft('decision') as RecordDraft<'decision'>
  await store.append({kind: 'decision', body: {...reject.body, proposal: squatted.id, evaluations: []}, cites: [squatted.id]}, {lane: 'evil', now: NOW})
  const mine = await createProposal(store, ws, await store.ledger(), options('b', {claim: h => claimFor(work(store, 'b'), h)}))
  t.ok(mine, 'lane b still proposes the patch the forged reject names')
  const ledger = await store.ledger()
  t.equal(ledger.load<'proposal'>(mine!.proposal).body.patch.normalized, ledger.load<'proposal'>(squatted.id).body.patch.normalized)
})

t.test('this lane\'s own reject still keeps the proposer from repeating the patch', async t => {
  const {store, ws} = await setup(t)
  const first = (await createProposal(store, ws, await store.ledger(), options('b')))!
  const reject = sampleDraft('decision') as RecordDraft<'decision'>
  await store.append({kind: 'decision', body: {...reject.body, proposal: first.proposal, evaluations: []}, cites: [first.proposal]}, {lane: 'b', now: NOW})
  t.equal(await createProposal(store, ws, await store.ledger(), options('b')), undefined, 'nothing new to propose')
})

// Found by an attack sweep: a standing decision of ANOTHER proposal, copied onto the attacker's
// lane with the squatted proposal added to its cites, counted as a decision of the squat.
t.test('only a standing decision of the proposal itself takes the candidate, not one that merely cites it', async t => {
  const {store, ws} = await setup(t)
  const squatted = await squat(t, store, ws)
  const reject = sampleDraft('decision') as RecordDraft<'decision'>
  await store.append({kind: 'decision', body: {...reject.body, evaluations: []}, cites: [squatted.id]}, {lane: 'evil', now: NOW})
  // (every decision taken to stand: what is looked at is whose proposal it is)
  const key = candidateKey(await store.ledger(), squatted.key, 'b', 'hy-000000000000000000000001', NOW(), () => true)
  t.not(recordId('proposal', '', key), squatted.id, 'the lane writes past it')
  await store.append({kind: 'decision', body: {...reject.body, proposal: squatted.id, evaluations: []}, cites: [squatted.id]}, {lane: 'evil', now: NOW})
  const after = await store.ledger()
  const taken = (() => {
    try {
      return candidateKey(after, squatted.key, 'b', 'hy-000000000000000000000001', NOW(), () => true)
    } catch (e) {
      return e
    }
  })()
  t.type(taken, CandidateTakenError, 'a standing decision of the proposal itself takes the candidate')
})
