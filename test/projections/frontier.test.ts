import t from 'tap'
import {frontier} from '../../src/projections/index.js'
import {Lab} from '../helpers/lab.js'

t.test('the shape of decentralized_research_frontier_v0', async t => {
  const lab = new Lab()
  await lab.hypothesis()
  const f = frontier(await lab.ledger(), 'a', lab.at(0))
  t.same(Object.keys(f), ['schema_version', 'agent_id', 'as_of', 'selected', 'blocked', 'promotion_candidates'])
  t.equal(f.schema_version, 'decentralized_research_frontier_v0')
  t.match(f.selected, {allowed_action: 'draft_proposal', reason: 'unclaimed and no proposal yet', claimed: false})
  t.equal(frontier(await new Lab().ledger(), 'a', lab.at(0)).selected, null, 'an empty ledger selects nothing')
})

t.test('unclaimed work is taken nearly-done first: needs_retry, supported, active, proposed; oldest first', async t => {
  const lab = new Lab()
  const proposed = await lab.hypothesis('x')
  const active = await lab.hypothesis('x')
  await lab.proposal(active, 'x')
  const active2 = await lab.hypothesis('x')
  await lab.proposal(active2, 'x')
  const pick = async () => frontier(await lab.ledger(), 'a', lab.at(0)).selected
  t.match(await pick(), {hypothesis: active, allowed_action: 'run_dev_attempt'})
  const supported = await lab.hypothesis('x')
  const p = await lab.proposal(supported, 'x')
  const b = await lab.evaluation(p, {role: 'baseline'})
  await lab.evaluation(p, {rate: 0.9, baseline: b})
  t.match(await pick(), {hypothesis: supported, allowed_action: 'run_holdout_eval', reason: 'unclaimed and held-out evidence gap'})
  await lab.evaluation(p, {rate: 0.9, baseline: b, split: 'holdout'})
  t.match(await pick(), {hypothesis: supported, allowed_action: 'decide_promotion'})
  const retry = await lab.hypothesis('x')
  const q = await lab.proposal(retry, 'x')
  await lab.evaluation(q, {invalid: true})
  t.match(await pick(), {hypothesis: retry, allowed_action: 'resume_attempt'})
  void proposed
})

t.test('a hypothesis the agent holds comes before anything else; contradicted, promoted and retired are never selected', async t => {
  const lab = new Lab()
  const done = await lab.hypothesis()
  await lab.promoted(done)
  const gone = await lab.hypothesis()
  await lab.note(gone, 'retire')
  const bad = await lab.hypothesis()
  const p = await lab.proposal(bad)
  await lab.evaluation(p, {rate: 0.1, baseline: await lab.evaluation(p, {role: 'baseline'})})
  const l = await lab.ledger()
  t.equal(frontier(l, 'a', lab.at(0)).selected, null)
  await lab.hypothesis()
  await lab.claim(bad, 'a', 600)
  t.match(frontier(await lab.ledger(), 'a', lab.at(30)).selected, {hypothesis: bad, claimed: true, allowed_action: 'draft_proposal'}, 'a lane may claim a contradicted hypothesis to try another intervention')
})

t.test('promotion candidates list what promotion still requires', async t => {
  const lab = new Lab()
  const h = await lab.hypothesis()
  const p = await lab.proposal(h)
  const b = await lab.evaluation(p, {role: 'baseline'})
  await lab.evaluation(p, {rate: 0.9, baseline: b})
  const req = async () => frontier(await lab.ledger(), 'z', lab.at(0)).promotion_candidates
  t.same(await req(), [{hypothesis: h, requires: ['holdout_eval', 'accept_decision']}])
  await lab.evaluation(p, {rate: 0.9, split: 'holdout'})
  t.same(await req(), [{hypothesis: h, requires: ['holdout_improvement', 'accept_decision']}], 'a held-out run with no comparison and no baseline is inconclusive')
  await lab.evaluation(p, {rate: 0.9, split: 'holdout', baseline: b})
  t.same(await req(), [{hypothesis: h, requires: ['accept_decision']}])
  await lab.claim(h, 'y', 600)
  t.same((await req()).length, 1, 'still a candidate while another lane works on it')
})
