import t from 'tap'
import {renderDashboard, type IterationReport} from '../../src/loop/dashboard.js'

const base: IterationReport = {iteration: 9, skill: {name: 'onboarding', version: 3, blob: 'b'.repeat(40), commit: 'c'.repeat(40)}, training: {manifest: 'mf-x', evaluation: 'el-x', passed: 0, total: 0, rate: 0, reused: true}, patterns: [], knowledge: [], episodes: 0}

// Found by a new user: iteration 9 of `exp demo` said "Skipped: hy-… (claimed by demo)" — demo
// being the lane that ran, and the hypothesis contradicted, claimed by no one.
t.test('the dashboard says why a hypothesis was passed over: held by another lane, decided already, or the same patch proposed before', async t => {
  const text = renderDashboard({...base, blocked: [
    {hypothesis: 'hy-1', holder: 'bob'},
    {hypothesis: 'hy-2', holder: 'nobody', why: 'it is contradicted already'},
    {hypothesis: 'hy-3', holder: 'demo', why: 'this lane proposed the same patch on this base before'},
  ]})
  t.match(text, /Skipped: hy-1 \(claimed by bob\)/)
  t.match(text, /Skipped: hy-2 \(it is contradicted already\)/)
  t.match(text, /Skipped: hy-3 \(this lane proposed the same patch on this base before\)/)
  t.match(text, /not run: the knowledge mined before still has a candidate to propose/)
  t.notMatch(text, /claimed by (nobody|demo)/)
})
