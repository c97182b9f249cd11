import type {Ledger} from '../store/index.js'
import {derivations} from './hypotheses.js'
import {researchIndex, type IndexOptions} from './research.js'
import type {Derivation} from './status.js'
import type {HypothesisStatus} from './types.js'

export type AllowedAction = 'draft_proposal' | 'run_dev_attempt' | 'resume_attempt' | 'run_holdout_eval' | 'decide_promotion'
export type PromotionRequirement = 'holdout_eval' | 'holdout_improvement' | 'accept_decision'

/** The research frontier (docs/frontier.md): what one agent may attempt now. */
export interface Frontier {
  schema_version: 'decentralized_research_frontier_v0'
  agent_id: string
  as_of: string
  selected: {hypothesis: string; reason: string; allowed_action: AllowedAction; claimed: boolean} | null
  blocked: {hypothesis: string; blocked_by: string; visible_as_context: boolean; until: string}[]
  promotion_candidates: {hypothesis: string; requires: PromotionRequirement[]}[]
}

// the order in which an agent takes up unclaimed work: finish what is nearly done first
const RANK: Partial<Record<HypothesisStatus, number>> = {needs_retry: 0, supported: 1, active: 2, proposed: 3}
const DONE = new Set<HypothesisStatus>(['promoted', 'retired'])

/**
 * The agent's frontier: workable hypotheses another lane holds are blocked (visible as
 * context); among the rest, one the agent is running (its live claim, nothing recorded
 * since) comes first, then other work by RANK, oldest first in ledger order. Contradicted
 * ones are selected only when claimed again; promoted and retired ones never. Pure: the
 * same ledger, agent and `now` give the same JSON in every clone.
 */
export function frontier(ledger: Ledger, agentId: string, now: Date, opts: IndexOptions = {}): Frontier {
  const blocked: Frontier['blocked'] = []
  const promotion: Frontier['promotion_candidates'] = []
  let held: Derivation | undefined
  let best: {d: Derivation; rank: number} | undefined
  for (const d of derivations(researchIndex(ledger, opts), now)) {
    const v = d.view
    if (DONE.has(v.status)) continue
    if (v.evidence_status === 'supported') promotion.push({hypothesis: v.id, requires: requirements(d)})
    const rank = RANK[v.evidence_status]
    // a claim that outlived its work (on a contradicted hypothesis) holds nothing worth showing
    if (rank === undefined && v.status !== 'running') continue
    if (v.claim && v.claim.holder !== agentId) {
      blocked.push({hypothesis: v.id, blocked_by: `claimed_by:${v.claim.holder}`, visible_as_context: true, until: v.claim.expires_at})
      continue
    }
    if (v.status === 'running') held ??= d
    else if (rank !== undefined && (!best || rank < best.rank)) best = {d, rank}
  }
  const pick = held ?? best?.d
  return {
    schema_version: 'decentralized_research_frontier_v0',
    agent_id: agentId,
    as_of: now.toISOString(),
    selected: pick ? select(pick, pick === held) : null,
    blocked,
    promotion_candidates: promotion,
  }
}

function select(d: Derivation, claimed: boolean): NonNullable<Frontier['selected']> {
  const [action, gap] = nextAction(d)
  return {hypothesis: d.view.id, reason: `${claimed ? 'current-agent claim' : 'unclaimed'} and ${gap}`, allowed_action: action, claimed}
}

/** The next step the evidence asks for, from the status without the claim overlay. */
function nextAction(d: Derivation): [AllowedAction, string] {
  switch (d.view.evidence_status) {
    case 'needs_retry': return ['resume_attempt', 'an attempt left resumable evidence but no trustworthy score']
    case 'supported': return d.gaps.holdout === 'supports' ? ['decide_promotion', 'held-out evidence awaiting a decision'] : ['run_holdout_eval', 'held-out evidence gap']
    case 'active': return ['run_dev_attempt', 'dev evidence gap']
    case 'contradicted': return ['draft_proposal', 'the last attempt contradicted it; a new intervention is needed']
    default: return d.gaps.proposal ? ['run_dev_attempt', 'dev evidence gap'] : ['draft_proposal', 'no proposal yet']
  }
}

function requirements(d: Derivation): PromotionRequirement[] {
  if (d.gaps.holdout === undefined || d.gaps.holdout === 'invalid') return ['holdout_eval', 'accept_decision']
  if (d.gaps.holdout !== 'supports') return ['holdout_improvement', 'accept_decision']
  return ['accept_decision']
}
