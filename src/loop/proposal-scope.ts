import type {ProposalBody} from '../records/types.js'
import type {Workspace} from '../workspace/port.js'
import {checkScope, shownPath} from '../gate/scope.js'
import {BoundaryError} from '../errors/index.js'
import {contractsAt} from '../contracts/load.js'

/**
 * What a skill proposal's branch may change from its base: the skill's SKILL.md (what the
 * evaluations judge) and its PURPOSE.yaml, and the accepted knowledge files beside it
 * (`knowledge/<slug>.yaml`): what `exp propose` writes. Each path must also lie in the skills
 * contract's editable scope at the base, not in its protected scope, and be a regular file.
 *
 * A proposal record names its branch's commit, and anyone's lane can hold one: without this,
 * a branch whose skill was better could carry a weaker `.research/policy.yaml` or edited
 * scenarios onto main with its promotion, changes no evaluation judged.
 */
export async function proposalViolations(ws: Workspace, p: Pick<ProposalBody, 'skill' | 'base' | 'head'>): Promise<string[]> {
  const changed = await ws.changedPaths(p.base.commit, p.head.commit)
  const own = new Set([`skills/${p.skill}/SKILL.md`, `skills/${p.skill}/PURPOSE.yaml`])
  const allowed = (f: string) => own.has(f) || /^knowledge\/[^/]+\.yaml$/.test(f)
  const skills = (await contractsAt(ws, p.base.commit)).filter(c => c.dev_eval.evaluator === 'world')
  const scope = skills.length ? {editable_scope: skills.flatMap(c => c.editable_scope), protected_scope: skills.flatMap(c => c.protected_scope)} : {editable_scope: ['skills/**', 'knowledge/*.yaml'], protected_scope: ['.research/**', 'scenarios/**']}
  const s = checkScope(changed, scope, await ws.linkedPaths(p.head.commit, changed))
  // one reason a path (the first of: not a regular file, protected, outside, not the skill's)
  return changed.flatMap(f => {
    const why = s.links.includes(f) ? 'not a regular file (a symbolic link, a submodule, or .gitattributes/.gitmodules)' : s.protected.includes(f) ? 'protected path changed' : s.outside.includes(f) ? 'outside the editable scope' : !allowed(f) ? `not a file a proposal of ${p.skill} writes` : undefined
    return why ? [`${why}: ${shownPath(f)}`] : []
  })
}

/** Refuse a proposal whose branch changes more than its skill (proposalViolations). */
export async function assertProposalScope(ws: Workspace, id: string, p: Pick<ProposalBody, 'skill' | 'base' | 'head'>): Promise<void> {
  const v = await proposalViolations(ws, p)
  if (v.length) throw new BoundaryError(id, v, {what: 'proposal', hint: `a proposal's branch may change only skills/${p.skill}/SKILL.md, its PURPOSE.yaml and knowledge/<slug>.yaml: nothing was evaluated or promoted (make a new proposal from the skill change alone)`})
}
