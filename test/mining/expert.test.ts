import t from 'tap'
import {ScriptedAgent} from '../../src/agents/scripted/index.js'
import {parseRules, renderRule} from '../../src/knowledge/index.js'
import type {SkillText} from '../../src/agents/types.js'
import {runEpisode} from '../../src/evals/episode.js'
import {episodeSeed} from '../../src/evals/prompt.js'
import {episodeDrafts} from '../../src/evals/runner/records.js'
import {runSplit} from '../../src/evals/split.js'
import {mergeKnowledge, mineEvidence, type MinedTrace} from '../../src/mining/index.js'
import {prepare} from '../../src/records/index.js'
import {MANIFEST_ID, shuffled} from '../helpers/mining.js'
import {builtinScenarios, EXPERT, INITIAL} from '../helpers/scenarios.js'

// The real thing: what the miner learns from the naive agent's own train runs with the
// initial skill, measured against the expert skill and on the validation split.
const scenarios = await builtinScenarios()
const agent = new ScriptedAgent()
const REPS = 3
const traces: MinedTrace[] = []
for (let r = 0; r < REPS; r++) {
  for (const scenario of scenarios.filter(s => s.split === 'train')) {
    const e = await runEpisode({scenario, agent, skills: [INITIAL()], seed: episodeSeed(1, r), repetition: r})
    const d = episodeDrafts(e, {manifest: MANIFEST_ID, agent: {name: 'scripted'}, skill: {name: 'onboarding', blob: 'a'.repeat(40)}})
    traces.push({id: d.traceId, body: d.trace.body, verification: {id: prepare(d.verification).id, body: d.verification.body}})
  }
}
const evidence = mineEvidence(traces)
const knowledge = mergeKnowledge(evidence.map(body => ({id: prepare({kind: 'evidence', body}).id, body})), [])
const mined = knowledge.filter(k => k.body.rule).map(k => ({line: renderRule(k.body.rule!), confidence: k.body.confidence}))
const pct = (x: number) => `${(x * 100).toFixed(1)}%`

/** The initial skill with rules appended as numbered lines under `## Procedure`. */
function withRules(lines: readonly string[]): SkillText {
  const base = INITIAL().content
  const at = base.indexOf('\n## Failure handling')
  const procedure = base.slice(0, at).trimEnd()
  const n = procedure.match(/^\d+\./gm)?.length ?? 0
  return {name: 'onboarding', content: `${procedure}\n${lines.map((l, i) => `${n + i + 1}. ${l}`).join('\n')}\n${base.slice(at)}`}
}

t.test('mining is deterministic on real traces too', async t => {
  t.equal(traces.length, scenarios.filter(s => s.split === 'train').length * REPS)
  t.equal(JSON.stringify(mineEvidence(shuffled(traces))), JSON.stringify(evidence))
})

t.test('the top-ranked knowledge holds most of the expert rules, written the same way', async t => {
  const expert = parseRules(EXPERT().content).map(renderRule)
  mined.forEach((m, i) => t.comment(`${String(i + 1).padStart(2)}. ${m.confidence.toFixed(3)} ${expert.includes(m.line) ? '[expert] ' : ''}${m.line}`))
  const ranks = expert.map(line => mined.findIndex(m => m.line === line))
  for (const [i, line] of expert.entries()) t.comment(`expert ${i + 1}: ${ranks[i]! >= 0 ? `rank ${ranks[i]! + 1}, confidence ${mined[ranks[i]!]!.confidence}` : 'not found'} — ${line}`)
  const top = ranks.filter(r => r >= 0 && r < 12).length
  t.ok(top >= 8, `${top} of ${expert.length} expert rules in the top 12`)
  t.ok(ranks.filter(r => r >= 0 && r < 6).length >= 5, 'the top 6 are nearly all expert rules')
})

t.test('appending the top mined rules to the initial skill raises validation success', async t => {
  const rate = async (lines: readonly string[]) => (await runSplit(scenarios, {agent, skills: [withRules(lines)], split: 'validation', repetitions: 10, seed: 7})).rate
  const lines = mined.map(m => m.line)
  t.same(parseRules(withRules(lines.slice(0, 3)).content).map(renderRule), lines.slice(0, 3), 'the agent reads every appended rule')
  const initial = await rate([])
  const top3 = await rate(lines.slice(0, 3))
  const top6 = await rate(lines.slice(0, 6))
  const all = await rate(lines)
  t.comment(`validation: initial ${pct(initial)}, top 3 ${pct(top3)}, top 6 ${pct(top6)}, all ${mined.length} ${pct(all)}`)
  t.ok(top3 > initial, 'top 3 beat the initial skill')
  t.ok(top6 >= initial + 0.15, 'top 6: at least 15 points above the initial skill')
  t.ok(all >= initial + 0.3, 'all mined rules: at least 30 points above')
})
