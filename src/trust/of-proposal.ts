import type {EvaluationBody, ProposalBody} from '../records/types.js'

const skillOf = (e: Pick<EvaluationBody, 'skill'>) => `${e.skill.name} at blob ${String(e.skill.blob).slice(0, 12)}`

/** Why `e` is not the proposal's head skill (as its candidate) or the skill it was made from (as its baseline). */
function notSideOf(p: Pick<ProposalBody, 'skill' | 'base' | 'head'>, side: 'candidate' | 'baseline', e: Pick<EvaluationBody, 'skill'>): string | undefined {
  if (side === 'candidate') return e.skill.name !== p.skill || e.skill.blob !== p.head.skill_blob ? `its candidate is ${skillOf(e)}, not the proposal's head (${p.skill} at blob ${p.head.skill_blob.slice(0, 12)})` : undefined
  return e.skill.name !== p.skill || e.skill.blob !== p.base.skill_blob ? `its baseline is ${skillOf(e)}, not the skill the proposal was made from (${p.skill} at blob ${p.base.skill_blob.slice(0, 12)})` : undefined
}

/**
 * Why a candidate evaluation and its baseline are not evidence of a proposal (undefined: they
 * are): the candidate must judge the proposal's head skill and the baseline the skill it was
 * made from (name and blob: what the manifests pin), on the same split. An evaluation names its
 * proposal in a field any lane writes; without this, a copy of another proposal's evaluation
 * relabelled, or the real candidate paired with a weak baseline of a lane's choosing, was
 * evidence of a proposal no run had judged. One rule for `exp promote` (what it decides on:
 * src/loop/promote.ts, validationOf), for a decision to stand, and for an evaluation that names
 * a proposal to stand (notEvaluationOf, src/trust/evaluation.ts: what every status, frontier,
 * graph and report counts).
 */
export function notOfProposal(p: Pick<ProposalBody, 'skill' | 'base' | 'head'>, candidate: Pick<EvaluationBody, 'skill' | 'split'>, baseline: Pick<EvaluationBody, 'skill' | 'split'>): string | undefined {
  const other = notSideOf(p, 'candidate', candidate) ?? notSideOf(p, 'baseline', baseline)
  if (other) return other
  if (baseline.split !== candidate.split) return `its baseline is of the ${baseline.split} split, not ${candidate.split}`
  return undefined
}

/**
 * Why one evaluation that names a proposal is not of it (undefined: it is), by the rule of
 * notOfProposal: a candidate (or gate head) must judge the proposal's head skill, a baseline (or
 * gate base) the skill it was made from, and an evaluation of another role one of the two; a
 * candidate's comparison baseline, when given, is held to the pair rule.
 */
export function notEvaluationOf(p: Pick<ProposalBody, 'skill' | 'base' | 'head'>, e: Pick<EvaluationBody, 'skill' | 'split' | 'role'>, comparedWith?: Pick<EvaluationBody, 'skill' | 'split'>): string | undefined {
  if (e.role === 'candidate' || e.role === 'gate-head') return comparedWith ? notOfProposal(p, e, comparedWith) : notSideOf(p, 'candidate', e)
  if (e.role === 'baseline' || e.role === 'gate-base') return notSideOf(p, 'baseline', e)
  return notSideOf(p, 'candidate', e) && notSideOf(p, 'baseline', e) ? `it judges ${skillOf(e)}, neither the proposal's head (blob ${p.head.skill_blob.slice(0, 12)}) nor the skill it was made from (blob ${p.base.skill_blob.slice(0, 12)})` : undefined
}
