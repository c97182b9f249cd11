import {parseRule, renderRule} from '../knowledge/index.js'
import {evolve, type EvolveOptions, type EvolveResult} from '../loop/evolve.js'
import {skillPath, unknownSkill} from '../loop/files.js'
import {runEvaluation} from '../evals/runner/run.js'
import type {RecordStore} from '../store/index.js'
import type {Workspace} from '../workspace/port.js'
import {NotFoundError} from '../errors/index.js'
import {namespaceOf, scopedStore, type Namespace} from './namespace.js'
import {measureVariants, reworded, withoutLines, type Variant} from './variants.js'
import {classifyRule, stateH4, type ClassifiedRule, type ExecutorEffect, type H4} from './classify.js'

/**
 * `exp matrix` (docs/matrix.md): the cross-model experiment. For each skill
 * source (an agent spec), `exp evolve` in the source's own namespace (src/matrix/namespace.ts)
 * from main's skill; then every evolved skill — and the initial one, for reference — run by
 * every executor on held-out; then every rule of every evolved skill classified from its
 * measured effect on each executor (src/matrix/classify.ts), and H4 stated. Everything is
 * an ordinary record: a rerun finds every evolve run finished and every episode recorded, and
 * redoes nothing.
 */
export interface MatrixOptions extends Omit<EvolveOptions, 'agent' | 'lane' | 'mainRef' | 'namespace' | 'onIteration'> {
  sources: string[]
  executors: string[]
  mainRef: string
  /** held-out episodes per scenario for every cell */
  holdoutRepeat: number
  /** validation episodes per scenario for the classifier's evidence */
  evidenceRepeat: number
}

export interface MatrixCell {
  source: string
  executor: string
  passed: number
  total: number
  rate: number
  ci: [number, number]
  evaluation: string
  manifest: string
  skill: {commit: string; blob: string}
}

export interface MatrixSource {
  spec: string
  namespace: Namespace
  commit: string
  evolve: Pick<EvolveResult, 'holdout_before' | 'holdout_after' | 'promoted' | 'rejected' | 'episodes' | 'stopped'> & {run: string; iterations: number}
  rules: ClassifiedRule[]
}

export interface MatrixResult {
  skill: string
  start: string
  executors: string[]
  sources: MatrixSource[]
  /** the initial skill (main's, where every source started) on each executor */
  initial: MatrixCell[]
  cells: MatrixCell[]
  h4: H4
  recorded: number
}

export async function runMatrix(store: RecordStore, ws: Workspace, o: MatrixOptions): Promise<MatrixResult> {
  const path = skillPath(o.skill)
  const start = await ws.readRef(o.mainRef)
  if (!start) throw new NotFoundError('branch', o.mainRef, 'commit the skill first: `exp init --example onboarding`')
  if (!(await ws.hasFile(start, path))) throw await unknownSkill(ws, start, o.mainRef, o.skill)
  // new episodes, however they came (evolve, cells, evidence): traces in the ledger after − before
  const traces = async () => (await store.ledger()).select({kinds: ['trace']}).length
  const before = await traces()
  const {sources: specs, executors, holdoutRepeat, evidenceRepeat, ...evolveOpts} = o
  const sources: MatrixSource[] = []
  for (const spec of specs) {
    const ns = namespaceOf('matrix', spec, start)
    // the namespace's main starts at main's tip; a rerun from the same main goes on from where it is
    if (!(await ws.readRef(ns.mainRef))) await ws.moveRef(ns.mainRef, start, undefined)
    o.onStep?.(`${spec}: evolve`)
    const r = await evolve(scopedStore(store, ns), ws, {...evolveOpts, agent: spec, lane: ns.lane, mainRef: ns.mainRef, namespace: ns.proposals, onStep: s => o.onStep?.(`${spec}: ${s}`)})
    const commit = (await ws.readRef(ns.mainRef))!
    sources.push({spec, namespace: ns, commit, evolve: {holdout_before: r.holdout_before, holdout_after: r.holdout_after, promoted: r.promoted, rejected: r.rejected, episodes: r.episodes, ...(r.stopped ? {stopped: r.stopped} : {}), run: `${r.run.id}/${r.run.generation}`, iterations: r.iterations.length}, rules: []})
  }
  const cell = async (source: string, commit: string, executor: string, lane: string): Promise<MatrixCell> => {
    o.onStep?.(`held-out: skill from ${source} run by ${executor}`)
    const r = await runEvaluation(store, {...evolveOpts, agent: executor, lane, workspace: ws, split: 'holdout', repeat: holdoutRepeat, skill: `${commit}:${path}`})
    return {source, executor, passed: r.passed, total: r.total, rate: r.success_rate, ci: r.ci, evaluation: r.evaluation, manifest: r.manifest, skill: {commit, blob: r.skill.blob}}
  }
  const initial: MatrixCell[] = []
  for (const e of executors) initial.push(await cell('initial', start, e, namespaceOf('matrix', e, start).lane))
  const cells: MatrixCell[] = []
  for (const s of sources) for (const e of executors) cells.push(await cell(s.spec, s.commit, e, s.namespace.lane))
  // the classifier's evidence: each rule left out, and reworded, for each executor, on validation
  for (const s of sources) {
    const text = (await ws.readFile(s.commit, path))!.toString('utf8')
    const lines = text.split('\n')
    const rules = lines.map((l, i) => ({line: i + 1, text: l, rule: parseRule(l)})).filter((x): x is {line: number; text: string; rule: NonNullable<ReturnType<typeof parseRule>>} => x.rule !== undefined)
    if (!rules.length) continue
    const variants: Variant[] = rules.flatMap(r => [
      {id: `without-${r.line}`, text: withoutLines(text, [r.line]), label: `${o.skill} from ${s.spec} without line ${r.line}`},
      {id: `reworded-${r.line}`, text: reworded(text, r.line), label: `${o.skill} from ${s.spec} with line ${r.line} reworded (no final period)`},
    ])
    const effects = new Map<number, ExecutorEffect[]>()
    for (const e of executors) {
      const run = await measureVariants(store, ws, {...evolveOpts, agent: e, lane: s.namespace.lane, base: s.commit, path, split: 'validation', repeat: evidenceRepeat, variants, onStep: x => o.onStep?.(`evidence for ${s.spec}: ${x}`)})
      for (const r of rules) {
        const w = run.variants.find(v => v.id === `without-${r.line}`)!
        const rw = run.variants.find(v => v.id === `reworded-${r.line}`)!
        const list = effects.get(r.line) ?? []
        list.push({executor: e, credit: w.credit, ci: w.ci, reworded: rw.credit, episodes: w.episodes, evaluations: {without: w.evaluation, reworded: rw.evaluation}})
        effects.set(r.line, list)
      }
    }
    s.rules = rules.map(r => classifyRule({line: r.line, text: r.text, rule: r.rule, canonical: renderRule(r.rule), source: s.spec, effects: effects.get(r.line)!}))
  }
  const h4 = stateH4(sources.flatMap(s => s.rules.map(r => ({...r, source: s.spec}))), cells)
  return {skill: o.skill, start, executors, sources, initial, cells, h4, recorded: (await traces()) - before}
}
