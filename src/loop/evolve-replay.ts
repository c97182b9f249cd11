import type {EvaluationBody} from '../records/types.js'
import type {Ledger} from '../store/index.js'
import type {IterationReport} from './dashboard.js'
import type {RunIteration} from './evolve-run.js'

/**
 * The dashboard of an iteration an earlier start of the same evolve run finished, rebuilt
 * from its records (decision, proposal, evaluations, the train run of its skill) instead of
 * running anything again.
 */
export function replayedReport(ledger: Ledger, it: RunIteration, o: {skill: string; base: {commit: string; blob: string; version: number}}): IterationReport {
  const train = trainOf(ledger, o.base.blob)
  const report: IterationReport = {iteration: it.iteration, skill: {name: o.skill, ...o.base}, training: train, patterns: [], knowledge: [], episodes: it.episodes, replayed: true}
  if (!it.decision || !ledger.get(it.decision)) return {...report, note: it.note ?? 'no candidate'}
  const d = ledger.load<'decision'>(it.decision).body
  const pe = ledger.get(d.proposal)
  if (!pe) return {...report, decision: {id: it.decision, verdict: d.verdict, reasons: d.reasons, ...(d.merge ? {merge: d.merge.commit} : {})}}
  const p = ledger.load<'proposal'>(pe).body
  const evs = d.evaluations.map(id => ledger.get(id)).filter(e => e !== undefined).map(e => ({id: e!.id, ...ledger.load<'evaluation'>(e!).body}))
  const find = (split: string, role: string) => evs.find(e => e.split === split && e.role === role)
  const vc = find('validation', 'candidate')
  const vb = find('validation', 'baseline')
  const hc = find('holdout', 'candidate')
  const hb = find('holdout', 'baseline')
  return {
    ...report,
    skill: {name: o.skill, version: Number(p.base.version) || o.base.version, blob: p.base.skill_blob, commit: p.base.commit},
    training: trainOf(ledger, p.base.skill_blob),
    knowledge: p.knowledge,
    proposal: {id: d.proposal, version: Number(p.head.version), branch: p.branch, added: p.patch.size.added, removed: p.patch.size.removed, sections: p.patch.sections},
    ...(vc && vb ? {validation: validationOf(vc, vb)} : {}),
    regressions: d.regressions.length,
    ...(hc && hb ? {holdout: {baseline: hb.success_rate, candidate: hc.success_rate}} : {}),
    decision: {id: it.decision, verdict: d.verdict, reasons: d.reasons, ...(d.merge ? {merge: d.merge.commit} : {})},
  }
}

function validationOf(c: EvaluationBody & {id: string}, b: EvaluationBody): NonNullable<IterationReport['validation']> {
  return {baseline: b.success_rate, candidate: c.success_rate, wins: c.comparison?.wins ?? 0, losses: c.comparison?.losses ?? 0, mcnemar_p: c.comparison?.mcnemar_p ?? 1, evaluation: c.id}
}

/** The latest train run of a skill version (by its SKILL.md blob). */
function trainOf(ledger: Ledger, blob: string): IterationReport['training'] {
  const e = ledger
    .select({kinds: ['evaluation'], includePrivate: false})
    .filter(x => {
      const b = ledger.load<'evaluation'>(x).body
      return b.split === 'train' && b.skill.blob === blob
    })
    .at(-1)
  if (!e) return {manifest: '', evaluation: '', passed: 0, total: 0, rate: 0}
  const b = ledger.load<'evaluation'>(e).body
  return {manifest: b.manifest, evaluation: e.id, passed: b.passed, total: b.total, rate: b.success_rate}
}
