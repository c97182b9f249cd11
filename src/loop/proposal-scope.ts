import type {ProposalBody} from '../records/types.js'
import type {Workspace} from '../workspace/port.js'
import {boundaryOf} from '../gate/boundary.js'
import {shownPath} from '../gate/scope.js'
import {BoundaryError, UntrustedEvidenceError} from '../errors/index.js'
import {refNameProblem} from '../ref-name.js'
import {CONTRACTS_DIR, contractsAt} from '../contracts/load.js'

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
export async function proposalViolations(ws: Workspace, p: Pick<ProposalBody, 'skill' | 'base' | 'head'>, memo?: ScopeMemo): Promise<string[]> {
  const changed = await ws.changedPaths(p.base.commit, p.head.commit)
  const own = new Set([`skills/${p.skill}/SKILL.md`, `skills/${p.skill}/PURPOSE.yaml`])
  const allowed = (f: string) => own.has(f) || /^knowledge\/[^/]+\.yaml$/.test(f)
  const s = await boundaryOf(ws, {base: p.base.commit, head: p.head.commit, changed}, await skillScope(ws, p.base.commit, memo))
  // one reason a path (the first of: not a regular file, protected, outside, not the skill's)
  return changed.flatMap(f => {
    const why = s.links.includes(f) ? 'not a regular file (a symbolic link, a submodule, or .gitattributes/.gitmodules)' : s.protected.includes(f) ? 'protected path changed' : s.outside.includes(f) ? 'outside the editable scope' : !allowed(f) ? `not a file a proposal of ${p.skill} writes` : undefined
    return why ? [`${why}: ${shownPath(f)}`] : []
  })
}

/**
 * The scopes of the skills contracts at a commit, remembered in `memo` by the id of the
 * contracts folder's tree: a folder with the same id holds the same contracts. The trust
 * checks ask for every accepted proposal, and most bases share their contracts folder
 * (reading and parsing them again was ~0.4 ms of each proposal's ~1 ms).
 */
export type ScopeMemo = Map<string, Promise<Scope>>

interface Scope {
  editable_scope: string[]
  protected_scope: string[]
}

async function skillScope(ws: Workspace, commit: string, memo?: ScopeMemo): Promise<Scope> {
  const read = async (): Promise<Scope> => {
    const skills = (await contractsAt(ws, commit)).filter(c => c.dev_eval.evaluator === 'world')
    return skills.length ? {editable_scope: skills.flatMap(c => c.editable_scope), protected_scope: skills.flatMap(c => c.protected_scope)} : {editable_scope: ['skills/**', 'knowledge/*.yaml'], protected_scope: ['.research/**', 'scenarios/**']}
  }
  if (!memo) return read()
  const key = (await ws.pathId(commit, CONTRACTS_DIR))?.oid ?? 'none'
  let scope = memo.get(key)
  if (!scope) memo.set(key, (scope = read()))
  return scope
}

/**
 * Whether a proposal record's `branch` is one `exp propose` gives proposal <id>:
 * `exp/proposal/<id>`, or `exp/proposal/<namespace>/<id>` in an experiment's namespace. The
 * field is its writer's word, and a reject deletes that branch and an accept records it: a
 * record naming `main` would have main deleted by the promotion that rejects it.
 */
export function ownProposalBranch(id: string, branch: string): boolean {
  if (!branch.startsWith('exp/proposal/') || !branch.endsWith(`/${id}`)) return false
  // (a name git check-ref-format takes: control characters, space, '..' and the rest refused)
  return refNameProblem(branch) === undefined
}

/** Refuse a proposal whose branch is not its own (ownProposalBranch) or changes more than its skill (proposalViolations). */
export async function assertProposalScope(ws: Workspace, id: string, p: Pick<ProposalBody, 'skill' | 'base' | 'head' | 'branch'>): Promise<void> {
  if (!ownProposalBranch(id, p.branch)) throw new UntrustedEvidenceError(`proposal ${id} names branch ${JSON.stringify(p.branch)}, not one of its own (exp/proposal/[NAMESPACE/]${id}): \`exp propose\` did not write it (another lane's record?), so it is not evaluated or promoted`, 'make a proposal of your own with `exp propose SKILL`', {proposal: id, branch: p.branch})
  const v = await proposalViolations(ws, p)
  if (v.length) throw new BoundaryError(id, v, {what: 'proposal', hint: `a proposal's branch may change only skills/${p.skill}/SKILL.md, its PURPOSE.yaml and knowledge/<slug>.yaml: nothing was evaluated or promoted (make a new proposal from the skill change alone)`})
}
