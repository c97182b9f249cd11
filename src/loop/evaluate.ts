import {ExpError, NotFoundError} from '../errors/index.js'
import type {ExpRecord} from '../records/index.js'
import type {Split} from '../records/types.js'
import type {GitRecordStore, Ledger} from '../store/index.js'
import {runEvaluation, type RunOptions, type RunResult} from '../evals/runner/run.js'
import {compareRuns, type Comparison} from '../evals/compare.js'
import {skillPath} from './files.js'

export type EvalRunOptions = Omit<RunOptions, 'split' | 'skill' | 'purpose' | 'role' | 'proposal' | 'decorate' | 'repo'>

export interface ProposalEvaluation {
  split: Split
  baseline: RunResult
  candidate: RunResult
  comparison: Comparison
}

export function loadProposal(ledger: Ledger, id: string): ExpRecord<'proposal'> {
  const e = ledger.get(id)
  if (!e) {
    const near = ledger.select({kinds: ['proposal']}).map(x => x.id).filter(x => x.startsWith(id))
    if (near.length === 1) return ledger.load<'proposal'>(near[0]!)
    throw new NotFoundError('proposal', id, 'list proposals with `exp ledger --kind proposal`')
  }
  if (e.kind !== 'proposal') throw new ExpError('E_USAGE', `${id} is a ${e.kind} record, not a proposal`, {hint: 'pass a pr-… id'})
  return ledger.load<'proposal'>(e)
}

/**
 * `exp eval PROPOSAL`: the candidate and the skill it was made from, on the same scenarios
 * with the same seeds; the candidate's evaluation carries the paired comparison. Episodes of
 * an unchanged baseline are reused, not rerun (same manifest).
 */
export async function evaluateProposal(store: GitRecordStore, proposal: ExpRecord<'proposal'>, split: Split, o: EvalRunOptions): Promise<ProposalEvaluation> {
  const p = proposal.body
  const base = {...o, repo: store.repo, split}
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
