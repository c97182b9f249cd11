import {parseRule} from '../knowledge/index.js'
import {compareRuns, type Comparison} from '../evals/compare.js'
import {runEvaluation, type RunResult} from '../evals/runner/run.js'
import type {EvalRunOptions} from '../loop/evaluate.js'
import type {Split} from '../records/types.js'
import type {RecordStore} from '../store/index.js'
import type {Workspace} from '../workspace/port.js'
import {createHash} from 'node:crypto'

/**
 * Skill variants measured against the skill they were made from (docs/matrix.md): each
 * variant is a commit over the skill's own commit (deterministic: the same text on the same
 * base is the same commit), run like any evaluation — a manifest pinning skill, agent, data,
 * seed; content-derived episode ids, so a rerun reuses every episode — and compared pairwise
 * (same scenarios, same seeds) with the skill as it is.
 */
export interface Variant {
  id: string
  text: string
  /** why it exists, for its commit message */
  label: string
}

export interface VariantEffect {
  id: string
  commit: string
  evaluation: string
  rate: number
  /** the evaluation's own paired comparison with the baseline (variant − baseline) */
  comparison: Comparison
  /** what the change from the skill to the variant costs: baseline − variant, with its paired 95% interval */
  credit: number
  ci: [number, number]
  wins: number
  losses: number
  episodes: number
}

export interface VariantRun {
  split: Split
  agent: string
  baseline: {commit: string; evaluation: string; rate: number; passed: number; total: number; ci: [number, number]}
  variants: VariantEffect[]
  /** episodes recorded by this call (0 on a rerun) */
  recorded: number
}

/** the rounding of every credit and interval (reports/credit.ts checks notes with it) */
export const r4 = (x: number) => Math.round(x * 1e4) / 1e4

/** The lines of a SKILL.md (1-based numbers) without some of them. */
export function withoutLines(text: string, lines: readonly number[]): string {
  const drop = new Set(lines)
  return text.split('\n').filter((_, i) => !drop.has(i + 1)).join('\n')
}

/** A rule line written another way with the same meaning: without its final period (the parser still reads it; a literal reader does not). */
export function reworded(text: string, line: number): string {
  return text.split('\n').map((l, i) => (i + 1 === line ? l.replace(/\.\s*$/, '') : l)).join('\n')
}

/** Is this line of a SKILL.md a rule of the rule language? */
export const isRuleLine = (line: string) => parseRule(line) !== undefined

export const shortHash = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 10)

export async function variantCommit(ws: Workspace, base: string, path: string, v: Variant): Promise<string> {
  return ws.commitFiles({base, files: [{path, content: Buffer.from(v.text)}], message: `exp: skill variant ${v.id}\n\n${v.label}\n\nExp-Variant-Of: ${base}\n`})
}

/** Run the skill at `base` and every variant on one split with one agent; pair each variant with the skill. */
export async function measureVariants(store: RecordStore, ws: Workspace, o: EvalRunOptions & {base: string; path: string; split: Split; variants: readonly Variant[]; onStep?: (s: string) => void}): Promise<VariantRun> {
  const {base, path, split, variants, onStep, ...run} = o
  const opts = {...run, workspace: ws, split}
  let recorded = 0
  onStep?.(`${split}: ${o.agent} on the skill`)
  const b: RunResult = await runEvaluation(store, {...opts, skill: `${base}:${path}`, role: 'baseline'})
  recorded += b.recorded
  const effects: VariantEffect[] = []
  for (const v of variants) {
    onStep?.(`${split}: ${o.agent} without ${v.id}`)
    const commit = await variantCommit(ws, base, path, v)
    let comparison: Comparison | undefined
    const r = await runEvaluation(store, {
      ...opts,
      skill: `${commit}:${path}`,
      role: 'candidate',
      decorate: (full, verified) => {
        comparison = compareRuns(b.private_evaluation ?? b.evaluation, b.verified, verified)
        return {...full, comparison}
      },
    })
    recorded += r.recorded
    const c = comparison!
    effects.push({
      id: v.id,
      commit,
      evaluation: r.evaluation,
      rate: r.success_rate,
      comparison: c,
      credit: r4(b.success_rate - r.success_rate),
      ci: [r4(-c.bootstrap_ci[1]), r4(-c.bootstrap_ci[0])],
      wins: c.losses,
      losses: c.wins,
      episodes: c.wins + c.losses + c.ties,
    })
  }
  return {split, agent: o.agent, baseline: {commit: base, evaluation: b.evaluation, rate: b.success_rate, passed: b.passed, total: b.total, ci: b.ci}, variants: effects, recorded}
}
