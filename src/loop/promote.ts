import {assertResearchFile, digestOf, parseYamlOrJson, type ExpRecord} from '../records/index.js'
import type {DecisionBody, EvaluationBody, PromotionPolicy, ProposalBody} from '../records/types.js'
import {hashObject} from '../records/object-id.js'
import {onLane, type Ledger, type RecordStore} from '../store/index.js'
import {ExpError, NotFoundError, UntrustedEvidenceError, WorkTreeBehindError} from '../errors/index.js'
import {REJECTED_PREFIX} from '../store/lanes.js'
import type {Workspace} from '../workspace/port.js'
import {advanceBranch, finishInterruptedAdvance, findPromotion} from '../workspace/advance.js'
import {loadAuthority, POLICY_PATH} from '../trust/load.js'
import type {Authority} from '../trust/authority.js'
import {notOfProposal} from '../trust/of-proposal.js'
import {evaluateProposal, type EvalRunOptions} from './evaluate.js'
import {holdoutChecks, validationChecks, verdictOf, type Check} from './policy.js'
import type {Comparison} from '../evals/compare.js'
import {purposePath, purposeText} from './files.js'
import {oneLine} from '../records/summary.js'
import {assertProposalFiles} from './proposal-files.js'
import type {Purpose} from '../skills/index.js'
import {datasetAt, evaluationDatasetProblem, SCENARIOS_PATH, type CommittedDataset} from '../trust/dataset.js'
import {treeOid} from '../evals/runner/dataset.js'

export interface PromoteOptions extends EvalRunOptions {
  mainRef: string
}

export interface PromoteResult {
  decision: string
  verdict: 'accept' | 'reject'
  checks: Check[]
  reasons: string[]
  /** the check that decided (a reject's first failure; an accept's statistical test) */
  decided_by?: Check
  merge?: string
  rejected_ref?: string
  /** a reject: why the proposal's branch was kept, not deleted (it has commits of its own, or is checked out) */
  kept_branch?: string
  holdout?: {baseline: number; candidate: number; evaluations: string[]}
  validation: {baseline: number; candidate: number}
  /** validation evaluations of this proposal that did not stand and were not used (forged, inconsistent, unsigned) */
  ignored?: {id: string; reason: string}[]
}

export interface LoadedPolicy {
  policy: PromotionPolicy
  version: string
  digest: string
  blob: string
  path: string
}

/** The policy as committed at `commit` (main: what a pull request cannot change without review). */
export async function loadPolicy(ws: Workspace, commit: string): Promise<LoadedPolicy> {
  const bytes = await ws.readFile(commit, POLICY_PATH)
  if (!bytes) throw new NotFoundError('promotion policy', `${commit.slice(0, 12)}:${POLICY_PATH}`, 'run `exp init` and commit .research/policy.yaml')
  const policy = (await parseYamlOrJson(bytes.toString('utf8'), `${commit.slice(0, 12)}:${POLICY_PATH}`)) as PromotionPolicy
  assertResearchFile('policy', policy, POLICY_PATH)
  return {policy, version: policy.version, digest: digestOf(policy), blob: hashObject('blob', bytes), path: POLICY_PATH}
}

/** The policy on the tip of the main branch, if it has one: what `exp eval` evaluates for (its sequential design). */
export async function mainPolicy(ws: Workspace, mainRef: string): Promise<LoadedPolicy | undefined> {
  const main = await ws.readRef(mainRef)
  if (!main || !(await ws.hasFile(main, POLICY_PATH))) return undefined
  return loadPolicy(ws, main)
}

/** Every validation candidate evaluation recorded for a proposal, on any lane, in ledger order. */
export function candidateEvaluations(ledger: Ledger, proposal: string): ExpRecord<'evaluation'>[] {
  return ledger.select({kinds: ['evaluation']}).map(e => ledger.load<'evaluation'>(e)).filter(r => r.body.proposal === proposal && r.body.role === 'candidate' && r.body.split === 'validation' && r.body.comparison)
}

export interface ValidationEvidence {
  /** the latest comparison that stands, if any */
  found?: {candidate: ExpRecord<'evaluation'>; baseline: ExpRecord<'evaluation'>}
  /** later ones that did not stand, with why */
  ignored: {id: string; reason: string}[]
}

/**
 * The latest validation comparison of a proposal that stands (docs/trust.md): its numbers
 * and its baseline's recompute from verifications whose traces replay in a fresh world, and it
 * judges the proposal's own skill against the skill it was made from (as a decision must to
 * stand: src/trust/of-proposal.ts, notOfProposal). Evaluations that do not stand or judge other
 * skills are skipped, whoever wrote them, and listed.
 */
export function validationOf(authority: Authority, proposal: string, body: Pick<ProposalBody, 'skill' | 'base' | 'head'>, dataset?: CommittedDataset): ValidationEvidence {
  const ledger = authority.ledger
  const ignored: ValidationEvidence['ignored'] = []
  const found = candidateEvaluations(ledger, proposal)
  for (let i = found.length - 1; i >= 0; i--) {
    const candidate = found[i]!
    const s = authority.standing(candidate.id)
    if (!s.ok) {
      ignored.push({id: candidate.id, reason: s.reason})
      continue
    }
    // run on the scenarios committed at the proposal's base, or it cannot promote (an experiment on another folder)
    const offData = dataset ? [candidate.id, candidate.body.comparison!.baseline].map(id => evaluationDatasetProblem(ledger, id, dataset, body.base.commit)).find(Boolean) : undefined
    if (offData) {
      ignored.push({id: candidate.id, reason: offData})
      continue
    }
    const baseline = candidate.body.comparison!.baseline
    const b = ledger.get(baseline)
    const other = b?.kind === 'evaluation' ? notOfProposal(body, candidate.body, ledger.load<'evaluation'>(b).body) : `its baseline ${baseline} is not an evaluation of this ledger`
    if (other) {
      ignored.push({id: candidate.id, reason: `it is not an evaluation of ${proposal}: ${other}`})
      continue
    }
    // what a promotion rests on is replayed, not only recomputed
    if (s.level !== 'replayed' || authority.standing(baseline).ok !== true || (authority.standing(baseline) as {level?: string}).level !== 'replayed') {
      ignored.push({id: candidate.id, reason: 'its episodes cannot be replayed here: the scenarios of its manifest (or its baseline\'s) are not in this repository'})
      continue
    }
    return {found: {candidate, baseline: ledger.load<'evaluation'>(ledger.get(baseline)!)}, ignored}
  }
  return {ignored}
}

/**
 * `exp promote PROPOSAL`: apply the versioned policy. Validation first (success, regressions,
 * cost tolerances), on the latest validation evidence that stands — replayed and recomputed,
 * never taken on faith; only then the sealed held-out split is looked at (and counted).
 * Accept: a merge commit of the proposal branch into main with Exp-Promotes / Exp-Evidence /
 * Exp-Policy trailers, then a decision record. Reject: a decision record with the reasons,
 * the branch kept under refs/research/rejected/<id>. Resumable at every step.
 *
 * One decision per proposal: two promotions of one proposal at once take turns on a lock,
 * and the second, reading the ledger again, finds the first's decision (without it, it saw
 * main moved by the first's merge and recorded a reject beside the accept).
 */
export async function promoteProposal(store: RecordStore, ws: Workspace, _ledger: Ledger, proposal: ExpRecord<'proposal'>, o: PromoteOptions): Promise<PromoteResult> {
  // (the caller's ledger is read again under the lock)
  return store.exclusive(`promote-${proposal.id}`, async () => decideProposal(store, ws, await store.ledger(), proposal, o), {timeoutMs: 24 * 3600_000})
}

async function decideProposal(store: RecordStore, ws: Workspace, ledger: Ledger, proposal: ExpRecord<'proposal'>, o: PromoteOptions): Promise<PromoteResult> {
  const p = proposal.body
  const main = await ws.readRef(o.mainRef)
  if (!main) throw new NotFoundError('branch', o.mainRef)
  // nothing but the skill (and its provenance files, as the records give them) reaches main with a promotion
  const purpose = await assertProposalFiles(ws, ledger, proposal)
  const policy = await loadPolicy(ws, main)
  // a decision is judged on the scenarios committed on main (the held-out split from its sealed
  // file), as the gate judges on the base's: a folder the promoter chose could hold a held-out
  // split of their own making, and no clone could replay it (src/trust/dataset.ts)
  const onMain = await datasetAt(ws, main)
  await assertMainScenarios(o.scenariosDir, onMain, o.mainRef)
  const base = {commit: p.base.commit, dataset: p.base.commit === main ? onMain : await datasetAt(ws, p.base.commit)}
  const replay = candidateEvaluations(ledger, proposal.id).flatMap(c => [c.id, c.body.comparison!.baseline])
  const authority = await loadAuthority(ledger, ws, {at: main, policy: policy.policy, replay, holdoutKey: o.holdoutKey?.key})
  const evidence = validationOf(authority, proposal.id, p, base.dataset)
  const val = evidence.found
  if (!val && evidence.ignored.length) throw new UntrustedEvidenceError(`no validation evaluation of ${proposal.id} stands: ${evidence.ignored.map(x => `${x.id}: ${x.reason}`).join('; ')}`, `run \`exp eval ${proposal.id}\` to evaluate it again, on the scenarios committed on main (without --scenarios)`, {ignored: evidence.ignored})
  if (!val) throw new ExpError('E_USAGE', `proposal ${proposal.id} has no validation evaluation yet`, {hint: `run \`exp eval ${proposal.id}\` first`})
  const ignored = evidence.ignored.length ? {ignored: evidence.ignored} : {}
  // decided already: by this lane, or by a standing accept (of any lane) whose merge of the
  // proposal is on this main. Another lane's reject does not decide for this one (it stands only
  // on evidence the policy rejects, and a standing accept outweighs it: trust/authority.ts), so
  // a lane cannot stop another's promotion with one; nor does another lane's accept whose merge
  // is not here (it merged in its own clone, never pushed: answered with it, this promote
  // printed ACCEPT and a merge commit this repository does not have, and merged nothing)
  const decided = ledger.select({kinds: ['decision'], cites: proposal.id}).filter(e => authority.counts(e.id)).map(e => ({e, d: ledger.load<'decision'>(e)})).filter(x => x.d.body.proposal === proposal.id)
  const merged = decided.some(x => x.d.body.verdict === 'accept' && !onLane(ledger, x.e, o.lane)) ? await findPromotion(ws, main, proposal.id, p.base.commit) : undefined
  const previous = (decided.find(x => x.d.body.verdict === 'accept' && (onLane(ledger, x.e, o.lane) || (merged !== undefined && x.d.body.merge?.commit === merged.oid))) ?? decided.find(x => onLane(ledger, x.e, o.lane)))?.d
  if (previous) return {...resultOf(previous, val), ...ignored}
  // (a promotion killed after main moved, before the work tree followed: finished first)
  await finishInterruptedAdvance(ws, o.mainRef)
  const mainDir = await ws.workTreeWith(o.mainRef)
  const dirty = mainDir ? await ws.exclusive(() => ws.dirtyFiles(mainDir)) : []
  if (dirty.length) throw new ExpError('E_DIRTY_TREE', `${o.mainRef.replace('refs/heads/', '')} is checked out and has uncommitted changes: ${dirty.slice(0, 5).join(', ')}`, {hint: 'commit or stash them, then promote again (a promotion updates the work tree like git merge)'})
  const input = {candidate: val.candidate.body as EvaluationBody & {comparison: Comparison}, baseline: val.baseline.body}
  const checks: Check[] = validationChecks(policy.policy, input)
  const evaluations = [val.candidate.id, val.baseline.id]
  let holdout: PromoteResult['holdout']
  const already = (await findPromotion(ws, main, proposal.id, p.base.commit))?.oid
  if (!already && main !== p.base.commit) checks.push({name: 'based on the current main', passed: false, detail: `main moved from ${p.base.commit.slice(0, 12)} to ${main.slice(0, 12)}: rebase the patch and evaluate it again`})
  if (checks.every(c => c.passed)) {
    const h = await evaluateProposal(store, ws, proposal, 'holdout', o)
    holdout = {baseline: h.baseline.success_rate, candidate: h.candidate.success_rate, evaluations: [h.candidate.evaluation, h.baseline.evaluation]}
    evaluations.push(...holdout.evaluations)
    checks.push(...holdoutChecks(policy.policy, {...input, holdout: {candidate: h.candidate.body, baseline: h.baseline.body}}))
  }
  const {verdict, reasons, decidedBy} = verdictOf(checks)
  const body: DecisionBody = {
    proposal: proposal.id,
    verdict,
    policy: {version: policy.version, digest: policy.digest, path: policy.path, blob: policy.blob},
    evaluations,
    checks,
    ...(decidedBy ? {decided_by: decidedBy} : {}),
    reasons,
    regressions: input.candidate.comparison.regressions,
    ...(p.hypothesis ? {hypothesis: p.hypothesis} : {}),
  }
  if (holdout) body.holdout_looks = (await store.ledger()).load<'evaluation'>(holdout.evaluations[0]!).body.holdout_looks ?? 1
  let behind: WorkTreeBehindError | undefined
  let kept: string | undefined
  if (verdict === 'accept') {
    let merge = already
    if (!merge) ({merge, behind} = await mergeProposal(ws, proposal, {main, mainRef: o.mainRef, evaluations, policy, validation: input, purpose}))
    body.merge = {commit: merge, branch: p.branch}
  } else {
    const ref = `${REJECTED_PREFIX}${proposal.id}`
    const have = await ws.readRef(ref)
    if (have !== p.head.commit) await ws.moveRef(ref, p.head.commit, have)
    kept = await dropBranch(ws, p.branch, p.head.commit, ref)
    body.rejected_ref = ref
  }
  const cites = [proposal.id, ...(p.hypothesis ? [p.hypothesis] : []), ...evaluations]
  const decision = (await store.append({kind: 'decision', body, cites}, {lane: o.lane, now: o.now})).id
  // the promotion stands and is recorded: then the work tree that could not follow it is said
  if (behind) throw behind
  return {decision, verdict, checks, reasons, ...(decidedBy ? {decided_by: decidedBy} : {}), merge: body.merge?.commit, rejected_ref: body.rejected_ref, ...(kept ? {kept_branch: kept} : {}), holdout, validation: {baseline: input.baseline.success_rate, candidate: input.candidate.success_rate}, ...ignored}
}

/**
 * A rejected proposal's branch goes (its commit stays under refs/research/rejected/<id>) only
 * while it is exactly the proposal's commit and no work tree has it checked out, and only if it
 * is still there when git deletes it (the old value checked under git's lock). A branch someone
 * committed to — a hand edit of the proposal — or one a work tree is on (deleting it left that
 * work tree on an unborn branch) is kept, and the reason returned.
 */
async function dropBranch(ws: Workspace, branch: string, head: string, rejected: string): Promise<string | undefined> {
  const ref = `refs/heads/${branch}`
  const at = await ws.readRef(ref)
  if (at === undefined) return undefined
  const kept = (why: string) => `${branch} is kept: ${why} (the proposal's commit is kept at ${rejected}; delete the branch with \`git branch -D ${branch}\` when it is no longer needed)`
  if (at !== head) return kept(`it is at ${at.slice(0, 12)}, not at the proposal's commit ${head.slice(0, 12)}: it has commits of its own`)
  const dir = await ws.workTreeWith(ref)
  if (dir) return kept(`it is checked out in ${dir}`)
  try {
    await ws.deleteRef(ref, head)
  } catch (e) {
    if (e instanceof ExpError && e.code === 'E_CONFLICT') return kept('it moved while exp was deleting it')
    throw e
  }
  return undefined
}

/**
 * The folder a promotion runs held-out episodes from must hold exactly the scenarios committed
 * on main (by tree id, the held-out split sealed as main has it): `--scenarios DIR` and
 * uncommitted changes are for experiments (`exp eval`, `exp run`), whose evidence cannot promote.
 * Refused before anything is run or recorded.
 */
async function assertMainScenarios(dir: string, onMain: CommittedDataset, mainRef: string): Promise<void> {
  const branch = mainRef.replace(/^refs\/heads\//, '')
  if (!onMain.tree) throw new ExpError('E_NOT_FOUND', `${branch} has no ${SCENARIOS_PATH}/: a promotion is judged on the scenarios committed on the main branch`, {hint: `commit the scenarios on ${branch} (\`exp init --example onboarding\` does), then promote`})
  const here = await treeOid(dir).catch(() => undefined)
  if (here === onMain.tree) return
  throw new ExpError('E_USAGE', `exp promote judges on the scenarios committed on ${branch} (${branch}:${SCENARIOS_PATH}, tree ${onMain.tree.slice(0, 12)}); the folder ${dir} is ${here ? `tree ${here.slice(0, 12)}` : 'not readable'}: nothing was run or recorded`, {
    hint: `drop --scenarios (a folder of your own is for experiments: \`exp eval --scenarios DIR\` records evidence that cannot promote), or commit the changes to ${SCENARIOS_PATH}/ on ${branch} first (\`git status ${SCENARIOS_PATH}\`)`,
    data: {flag: '--scenarios', dir, tree: here, main_tree: onMain.tree},
  })
}

/**
 * The merge of an accepted proposal: its branch's tree, with PURPOSE.yaml written from the
 * records (`purpose`: what `exp propose` writes for the proposal, proposal-files.ts, which the
 * branch's file was checked to be), marked accepted, with the scores of the evaluator records.
 */
async function mergeProposal(ws: Workspace, proposal: ExpRecord<'proposal'>, o: {main: string; mainRef: string; evaluations: string[]; policy: LoadedPolicy; validation: {candidate: EvaluationBody; baseline: EvaluationBody}; purpose: Purpose}): Promise<{merge: string; behind?: WorkTreeBehindError}> {
  const p = proposal.body
  const accepted: Purpose = {...o.purpose, status: 'accepted', evaluation: {previous_score: o.validation.baseline.success_rate, candidate_score: o.validation.candidate.success_rate, evaluations: o.evaluations}}
  const version = accepted.version
  const message = `exp: promote ${p.skill} v${version} (${proposal.id})\n\nvalidation ${(o.validation.baseline.success_rate * 100).toFixed(1)}% -> ${(o.validation.candidate.success_rate * 100).toFixed(1)}%, ${p.patch.size.added} line(s) added in ${p.patch.sections.join(', ')}.\n${oneLine(p.reason)}\n\nExp-Promotes: ${proposal.id}\nExp-Evidence: ${o.evaluations.join(' ')}\nExp-Policy: ${o.policy.version} ${o.policy.digest}\n`
  // the proposal is based on main's tip (checked above), so the merge tree is the branch's tree plus PURPOSE.yaml marked accepted
  const merge = await ws.commitFiles({base: p.head.commit, parents: [o.main, p.head.commit], message, files: [{path: purposePath(p.skill), content: Buffer.from(purposeText(accepted))}]})
  const behind = await advanceBranch(ws, o.mainRef, o.main, merge)
  return behind ? {merge, behind} : {merge}
}

function resultOf(d: ExpRecord<'decision'>, val: {candidate: ExpRecord<'evaluation'>; baseline: ExpRecord<'evaluation'>}): PromoteResult {
  return {decision: d.id, verdict: d.body.verdict, checks: d.body.checks, reasons: d.body.reasons, ...(d.body.decided_by ? {decided_by: d.body.decided_by} : {}), merge: d.body.merge?.commit, rejected_ref: d.body.rejected_ref, validation: {baseline: val.baseline.body.success_rate, candidate: val.candidate.body.success_rate}}
}
