import t from 'tap'
import {summarizeSplit} from '../../src/attempts/summary.js'
import {parseContract} from '../../src/contracts/load.js'
import type {VerdictBody} from '../../src/records/types.js'
import {CONTRACT} from '../helpers/contracts.js'

// Found by an attack sweep: with `max_failed_repetitions: 1`, an evaluation stopped at its
// first failed repetition and the split was summarized on the repetitions that ran: the mean
// of one lucky repetition against the baseline's mean over all five, and no paired test with
// one difference. An attempt that changed nothing but crashed on odd seeds was accepted.

const contractOf = (reps: number, maxFailed: number) => {
  const text = CONTRACT.replace(/private_data:\n {2}- data\/secret.json\n/, '').replaceAll('repetitions: 2', `repetitions: ${reps}`).replace(/^budget:/m, `validity:\n  max_failed_repetitions: ${maxFailed}\nbudget:`)
  const c = parseContract(text, '.research/contracts/quad.yaml')
  if (!c.contract) throw new Error(JSON.stringify(c))
  return c.contract
}
const verdict = (c: ReturnType<typeof contractOf>, attempt: string, repetition: number, value: number | undefined): {body: VerdictBody} => ({
  body: {observation: 'ob-000000000000000000000000', observation_digest: `sha256:${'0'.repeat(64)}`, attempt, contract: {name: 'quad', digest: c.source.digest}, split: 'dev', repetition, evaluator: {id: 'command:quad', version: '1', digest: `sha256:${'1'.repeat(64)}`}, ...(value === undefined ? {valid: false, outcome: 'invalid', violations: ['crash'], needs_retry: {stop_reason: 'crash', resume: {action: 'retry', retries_left: 1}}} : {valid: true, outcome: 'neutral', violations: [], metric: {name: 'score', value}})} as VerdictBody,
})

t.test('every repetition the contract asks for counts: one never run is one that gave no number', async t => {
  const c = contractOf(5, 1)
  const base = [-9, -1, -2, -3, -4].map((v, r) => verdict(c, 'at-b', r, v))
  // repetition 0 lucky (-1 against the baseline's -9 on the same seed), repetition 1 crashed, the rest never run
  const s = summarizeSplit(c, [verdict(c, 'at-a', 0, -1), verdict(c, 'at-a', 1, undefined)], base)
  t.equal(s.repetitions, 5)
  t.equal(s.failed, 4)
  t.not(s.outcome, 'positive')
  t.equal(s.reason, '4 of 5 repetition(s) gave no valid score: 1 ran without one (crash), 3 not run')
})

t.test('the means compare the same seeds, valid on both sides, and one pair is not a test', async t => {
  const c = contractOf(5, 1)
  // the attempt equals the baseline on every seed it ran; its crash is on the seed where the baseline scored worst
  const baseline = [-1, -9, -1, -1, -1].map((v, r) => verdict(c, 'at-b', r, v))
  const same = summarizeSplit(c, [verdict(c, 'at-a', 0, -1), verdict(c, 'at-a', 1, undefined), ...[2, 3, 4].map(r => verdict(c, 'at-a', r, -1))], baseline)
  t.equal(same.failed, 1)
  t.equal(same.gain, 0, 'no gain: the seed the attempt did not give is left out of the baseline too')
  t.equal(same.outcome, 'neutral')
  // five repetitions asked, only one valid on both sides: no test, no positive outcome
  const c2 = contractOf(2, 1)
  const one = summarizeSplit(c2, [verdict(c2, 'at-a', 0, 5), verdict(c2, 'at-a', 1, undefined)], [0, 0].map((v, r) => verdict(c2, 'at-b', r, v)))
  t.equal(one.gain, 5)
  t.equal(one.outcome, 'neutral', 'a gain on one seed of two is not significant')
  // a contract of one repetition decides on it, as before
  const c1 = contractOf(1, 0)
  t.equal(summarizeSplit(c1, [verdict(c1, 'at-a', 0, 5)], [verdict(c1, 'at-b', 0, 0)]).outcome, 'positive')
})
