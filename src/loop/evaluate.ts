import {ExpError, NotFoundError} from '../errors/index.js'
import {byPrefix} from '../records/prefix.js'
import type {ExpRecord} from '../records/index.js'
import type {PromotionPolicy, Split} from '../records/types.js'
import type {Ledger, RecordStore} from '../store/index.js'
import type {Workspace} from '../workspace/port.js'
import {runEvaluation, type RunOptions, type RunResult} from '../evals/runner/run.js'
import {runPaired, type PairedResult} from '../evals/runner/paired.js'
import {compareRuns, type Comparison} from '../evals/compare.js'
import {skillPath} from './files.js'
import {afterPass, looksOf} from './policy.js'

/** What every evaluation of a loop step shares; `repo` (the git folders, when there are some) comes from the caller, as the ports do. */
export type EvalRunOptions = Omit<RunOptions, 'split' | 'skill' | 'purpose' | 'role' | 'proposal' | 'decorate' | 'workspace'>

export interface ProposalEvaluation {
  split: Split
  baseline: RunResult
  candidate: RunResult
  comparison: Comparison
  /** a sequential validation: the pass it stopped after, of how many, why, and the comparison after each pass */
  sequential?: Pick<PairedResult, 'look' | 'looks' | 'why' | 'passes'>
}

export function loadProposal(ledger: Ledger, id: string): ExpRecord<'proposal'> {
  const e = ledger.get(id)
  if (!e) {
    const found = byPrefix(ledger.select({kinds: ['proposal']}).map(x => x.id), id, 'proposal')
    if (found) return ledger.load<'proposal'>(found)
    throw new NotFoundError('proposal', id, 'list proposals with `exp ledger --kind proposal`')
  }
  if (e.kind !== 'proposal') throw new ExpError('E_USAGE', `${id} is a ${e.kind} record, not a proposal`, {hint: 'pass a pr-… id'})
  return ledger.load<'proposal'>(e)
}

/**
 * `exp eval PROPOSAL`: the candidate and the skill it was made from, on the same scenarios
 * with the same seeds; the candidate's evaluation carries the paired comparison. Episodes of
 * an unchanged baseline are reused, not rerun (same manifest). With a policy that has a
 * sequential design, validation runs pass by pass and stops at the first pass where the
 * policy decides (src/evals/runner/paired.ts); otherwise it is `repeat` repetitions at once.
 */
export async function evaluateProposal(store: RecordStore, ws: Workspace, proposal: ExpRecord<'proposal'>, split: Split, options: EvalRunOptions & {policy?: PromotionPolicy}): Promise<ProposalEvaluation> {
  const {policy, ...o} = options
  const p = proposal.body
  const base = {...o, workspace: ws, split}
  if (split === 'validation' && policy && looksOf(policy) > 1) {
    const r = await runPaired(store, {
      baseline: {...base, skill: `${p.base.commit}:${skillPath(p.skill)}`, role: 'baseline', proposal: proposal.id},
      candidate: {...base, skill: `${p.head.commit}:${skillPath(p.skill)}`, role: 'candidate', proposal: proposal.id},
      looks: looksOf(policy),
      stop: s => afterPass(policy, {candidate: s.candidate, baseline: s.baseline}, {look: s.look, scenarios: s.scenarios}),
    })
    return {split, baseline: r.baseline, candidate: r.candidate, comparison: r.comparison, sequential: {look: r.look, looks: r.looks, why: r.why, passes: r.passes}}
  }
  const baseline = await runEvaluation(store, {...base, skill: `${p.base.commit}:${skillPath(p.skill)}`, role: 'baseline', proposal: proposal.id})
  let comparison: Comparison | undefined
  const candidate = await runEvaluation(store, {
    ...base,
    skill: `${p.head.commit}:${skillPath(p.skill)}`,
    role: 'candidate',
    proposal: proposal.id,
    decorate: (full, verified) => {
      comparison = compareRuns(baseline.private_evaluation ?? baseline.evaluation, baseline.verified, verified)
      return {...full, comparison}
    },
  })
  return {split, baseline, candidate, comparison: comparison!}
}
