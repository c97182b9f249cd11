import t from 'tap'
import {readAblationNote, readResearchNote} from '../../src/reports/notes.js'
import {SkippedNotes} from '../../src/cli/skipped-notes.js'

// The typed readers of the notes the views read as data (src/reports/notes.ts): every field a
// view reads, given a value of another type, makes the note a malformed one, named by the field
// (an attack sweep stopped `exp report` for every clone with one such field).

const ID = 'abcdefabcdef'
const compare = {
  id: ID,
  arms: [{arm: 'baseline', namespace: `cmp-${ID}-baseline`, mode: 'off', episodes: 12, evaluation: 'el-1'}],
  hypotheses: [{id: 'H2', verdict: 'not tested', evidence: 'one arm'}],
  pairs: [{a: 'memory', b: 'baseline', diff: 0.1, mcnemar_p: 0.5, bootstrap_ci: [-0.1, 0.3]}],
}
const side = (mode: string) => ({mode, namespace: `gain-${ID}-${mode}`, evaluation: 'el-2', metrics: {repeated_failure_rate: null, invalid_rate: 0, recalled_cited_rate: 0.5, hypothesis_redundancy: null}})
const gain = {id: ID, gain: 0.1, ci: [-0.1, 0.2], mcnemar_p: 0.4, pairs: 20, closed_loop: side('closed_loop'), off: side('off')}
const credit = {credit: 0.1, ci: [0, 0.2], wins: 1, losses: 0, episodes: 10, rate: 0.5, evaluation: 'el-3'}
const ablation = {
  format: 'ablation@1',
  skill: 'onboarding',
  version: 2,
  commit: 'c0ffee',
  blob: 'b10b',
  agent: 'scripted',
  seed: 42,
  repeat: 1,
  splits: ['validation'],
  baseline: {validation: {commit: 'c0ffee', evaluation: 'el-4', rate: 0.6, passed: 6, total: 10, ci: [0.3, 0.8]}},
  units: [{id: 'rule-1', kind: 'rule', lines: [3], text: ['1. Always ask.'], rule: 'ask', credit: {validation: credit}, removal: false}],
  candidates: [],
}

type Any = Record<string, any>
const with_ = (base: object, f: (j: Any) => void) => {
  const j = structuredClone(base) as Any
  f(j)
  return j
}

t.test('compare and gain notes: the honest shape reads, every field of another type is named', async t => {
  const read = (kind: 'compare' | 'gain', j: object, lane = `${kind === 'compare' ? 'cmp' : 'gain'}-${ID}`) => readResearchNote(kind, lane, `${kind} ${ID}: ${JSON.stringify(j)}`)
  t.same(read('compare', compare), {value: compare})
  t.same(read('gain', gain), {value: gain})
  t.equal(read('compare', compare, 'mallory'), undefined, 'not on its own lane: not a compare note')
  t.equal(readResearchNote('compare', `cmp-${ID}`, `gain ${ID}: {}`), undefined, 'another kind')
  t.same(readResearchNote('compare', `cmp-${ID}`, `compare ${ID}: {"arms":[}`), {problem: 'a malformed compare note (its JSON does not parse)'})
  const compares: [string, (j: Any) => void][] = [
    ['arms is missing', j => delete j.arms],
    ['arms is empty', j => (j.arms = [])],
    ['arms is not a list', j => (j.arms = {})],
    ['arms[0] is not an object', j => (j.arms = ['baseline'])],
    ...(['arm', 'mode', 'evaluation', 'namespace'] as const).map((k): [string, (j: Any) => void] => [`arms[0].${k} is not a string`, j => (j.arms[0][k] = 7)]),
    ['arms[0].episodes is not a whole number', j => (j.arms[0].episodes = '12')],
    ['arms[0].episodes is not a whole number', j => (j.arms[0].episodes = 1.5)],
    ['arms[0].mode is missing', j => delete j.arms[0].mode],
    ['hypotheses is not a list', j => (j.hypotheses = 'H1')],
    ...(['id', 'verdict', 'evidence'] as const).map((k): [string, (j: Any) => void] => [`hypotheses[0].${k} is not a string`, j => (j.hypotheses[0][k] = null)]),
    ['pairs is not a list', j => (j.pairs = 3)],
    ...(['a', 'b'] as const).map((k): [string, (j: Any) => void] => [`pairs[0].${k} is not a string`, j => (j.pairs[0][k] = 0)]),
    ...(['diff', 'mcnemar_p'] as const).map((k): [string, (j: Any) => void] => [`pairs[0].${k} is not a number`, j => (j.pairs[0][k] = '0.5')]),
    ['pairs[0].bootstrap_ci is not an interval [low, high]', j => (j.pairs[0].bootstrap_ci = [0])],
    ['pairs[0].bootstrap_ci[1] is not a number', j => (j.pairs[0].bootstrap_ci = [0, 'x'])],
  ]
  for (const [problem, f] of compares) t.same(read('compare', with_(compare, f)), {problem: `a malformed compare note (${problem})`}, problem)
  const gains: [string, (j: Any) => void][] = [
    ['off is missing', j => delete j.off],
    ['closed_loop is not an object', j => (j.closed_loop = [])],
    ...(['mode', 'namespace', 'evaluation'] as const).flatMap(k => (['closed_loop', 'off'] as const).map((s): [string, (j: Any) => void] => [`${s}.${k} is not a string`, j => (j[s][k] = 1)])),
    ['off.metrics is not an object', j => (j.off.metrics = null)],
    ['closed_loop.metrics.invalid_rate is not a number', j => (j.closed_loop.metrics.invalid_rate = '0')],
    ['off.metrics.hypothesis_redundancy is not a number', j => (j.off.metrics.hypothesis_redundancy = {})],
    ['ci is not an interval [low, high]', j => (j.ci = 'wide')],
    ['mcnemar_p is not a number', j => (j.mcnemar_p = null)],
    ['pairs is not a whole number', j => (j.pairs = '20')],
  ]
  for (const [problem, f] of gains) t.same(read('gain', with_(gain, f)), {problem: `a malformed gain note (${problem})`}, problem)
})

t.test('ablation notes: the honest shape reads, every field a view reads of another type is named', async t => {
  const read = (j: object) => readAblationNote(JSON.stringify(j))
  t.same(read(ablation), {value: ablation})
  t.equal(readAblationNote('{"format":"other"}'), undefined, 'not an ablation note')
  const cases: [string, (j: Any) => void][] = [
    ...(['skill', 'commit', 'blob', 'agent'] as const).map((k): [string, (j: Any) => void] => [`${k} is not a string`, j => (j[k] = 1)]),
    ['version is not a whole number from 1', j => (j.version = '2')],
    ['repeat is not a whole number from 1', j => (j.repeat = 0)],
    ['seed is not a whole number', j => (j.seed = -1)],
    ['splits is empty', j => (j.splits = [])],
    ['splits[0] is not one of validation, holdout', j => (j.splits = [7])],
    ['splits repeat', j => (j.splits = ['validation', 'validation'])],
    ['baseline.validation.rate is not a number', j => (j.baseline.validation.rate = '0.6')],
    ['baseline.validation.evaluation is not a string', j => (j.baseline.validation.evaluation = 4)],
    ['units is not a list', j => (j.units = {})],
    ['units[0].id is not a string', j => (j.units[0].id = 12345)],
    ['units[0].kind is not one of rule, patch', j => (j.units[0].kind = 'line')],
    ['units[0].lines[0] is not a whole number from 1', j => (j.units[0].lines = [0])],
    ['units[0].text[0] is not a string', j => (j.units[0].text = [3])],
    ['units[0] has 2 line(s) and 1 text(s)', j => (j.units[0].lines = [3, 4])],
    ['units[0].rule is not a string', j => (j.units[0].rule = [])],
    ['units[0].proposal is not a string', j => (j.units[0].proposal = 1)],
    ['units[0].version is not a whole number from 1', j => (j.units[0].version = 'v2')],
    ['units[0].removal is not true or false', j => (j.units[0].removal = 'no')],
    ['units[0].credit.validation.ci is missing', j => delete j.units[0].credit.validation.ci],
    ['units[0].credit.holdout.credit is not a number', j => (j.units[0].credit.holdout = {...credit, credit: '1'})],
    ['units[0].credit.validation.evaluation is not a string', j => (j.units[0].credit.validation.evaluation = null)],
    ['candidates[0] is not a string', j => (j.candidates = [1])],
  ]
  for (const [problem, f] of cases) t.same(read(with_(ablation, f)), {problem: `a malformed ablation note (${problem})`}, problem)
  t.same(readAblationNote('{"format":"ablation@1",'), {problem: 'a malformed ablation note (its JSON does not parse)'})
})

t.test('the CLI names each skipped note once, at most 20, then a count', async t => {
  const s = new SkippedNotes()
  for (let i = 0; i < 25; i++) s.add({note: `nt-${i}`, problem: 'a malformed compare note (x)'})
  s.add({note: 'nt-0', problem: 'again'})
  const lines: string[] = []
  s.report(l => lines.push(l))
  t.equal(lines.length, 21)
  t.equal(lines[0], 'warning: skipped note nt-0: a malformed compare note (x); the view goes on without it')
  t.equal(lines[20], 'warning: … and 5 more malformed note(s)')
  const none: string[] = []
  new SkippedNotes().report(l => none.push(l))
  t.same(none, [])
})
