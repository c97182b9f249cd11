import {parse as parseYaml} from '../vendor/yaml.js'
import {assertResearchFile, digestOf, type ExpRecord} from '../records/index.js'
import type {DecisionBody, EvaluationBody, PromotionPolicy} from '../records/types.js'
import {hashObject} from '../store/git/objects.js'
import {readRef} from '../store/git/refs.js'
import {checkedOutBranch, commitFiles, deleteRef, dirtyFiles, moveRef, readCommit, readFileAt, updateWorkTree} from '../store/git/commits.js'
import type {GitRecordStore, Ledger} from '../store/index.js'
import {ExpError, NotFoundError} from '../errors/index.js'
import {REJECTED_PREFIX} from '../store/lanes.js'
import {evaluateProposal, type EvalRunOptions} from './evaluate.js'
import {holdoutChecks, validationChecks, verdictOf, type Check} from './policy.js'
import type {Comparison} from './compare.js'
import {purposePath, purposeText} from './files.js'
import {readPurposeAt} from './proposal.js'

export interface PromoteOptions extends EvalRunOptions {
  mainRef: string
}

export interface PromoteResult {
  decision: string
  verdict: 'accept' | 'reject'
  checks: Check[]
  reasons: string[]
  merge?: string
  rejected_ref?: string
  holdout?: {baseline: number; candidate: number; evaluations: string[]}
  validation: {baseline: number; candidate: number}
}

export interface LoadedPolicy {
  policy: PromotionPolicy
  version: string
  digest: string
  blob: string
  path: string
}

/** The policy as committed on main (what a pull request cannot change without review). */
export async function policyAt(store: GitRecordStore, commit: string): Promise<LoadedPolicy> {
  const path = '.research/policy.yaml'
  const bytes = await readFileAt(store, commit, path)
  if (!bytes) throw new NotFoundError('promotion policy', `${commit.slice(0, 12)}:${path}`, 'run `exp init` and commit .research/policy.yaml')
  const policy = parseYaml(bytes.toString('utf8')) as PromotionPolicy
  assertResearchFile('policy', policy, path)
  return {policy, version: policy.version, digest: digestOf(policy), blob: hashObject('blob', bytes), path}
}

/** The latest validation comparison recorded for a proposal: candidate and baseline evaluations. */
export function validationOf(ledger: Ledger, proposal: string): {candidate: ExpRecord<'evaluation'>; baseline: ExpRecord<'evaluation'>} | undefined {
  const found = ledger.select({kinds: ['evaluation'], cites: undefined}).map(e => ledger.load<'evaluation'>(e)).filter(r => r.body.proposal === proposal && r.body.role === 'candidate' && r.body.split === 'validation' && r.body.comparison)
  const candidate = found[found.length - 1]
  if (!candidate) return undefined
  const b = ledger.get(candidate.body.comparison!.baseline)
  return b ? {candidate, baseline: ledger.load<'evaluation'>(b)} : undefined
}

/** A merge commit on main's first-parent line that promoted `proposal` (a resumed promotion). */
async function findPromotion(store: GitRecordStore, tip: string, proposal: string): Promise<string | undefined> {
  let oid: string | undefined = tip
  for (let i = 0; oid && i < 500; i++) {
    const c = await readCommit(store, oid)
    if (c.parents.length > 1 && c.message.includes(`Exp-Promotes: ${proposal}`)) return oid
    oid = c.parents[0]
  }
  return undefined
}

/**
 * `exp promote PROPOSAL`: apply the versioned policy. Validation first (success, regressions,
 * cost tolerances); only then the sealed held-out split is looked at (and counted). Accept:
 * a merge commit of the proposal branch into main with Exp-Promotes / Exp-Evidence /
 * Exp-Policy trailers, then a decision record. Reject: a decision record with the reasons,
 * the branch kept under refs/research/rejected/<id>. Resumable at every step.
 */
export async function promoteProposal(store: GitRecordStore, ledger: Ledger, proposal: ExpRecord<'proposal'>, o: PromoteOptions): Promise<PromoteResult> {
  const p = proposal.body
  const previous = ledger.select({kinds: ['decision'], cites: proposal.id}).map(e => ledger.load<'decision'>(e)).find(d => d.body.proposal === proposal.id)
  const val = validationOf(ledger, proposal.id)
  if (!val) throw new ExpError('E_USAGE', `proposal ${proposal.id} has no validation evaluation yet`, {hint: `run \`exp eval ${proposal.id}\` first`})
  if (previous) return resultOf(previous, val)
  const main = await readRef(store.commonDir, o.mainRef)
  if (!main) throw new NotFoundError('branch', o.mainRef)
  const onMain = checkedOutBranch(store) === o.mainRef
  const dirty = onMain ? await dirtyFiles(store) : []
  if (dirty.length) throw new ExpError('E_DIRTY_TREE', `${o.mainRef.replace('refs/heads/', '')} is checked out and has uncommitted changes: ${dirty.slice(0, 5).join(', ')}`, {hint: 'commit or stash them, then promote again (a promotion updates the work tree like git merge)'})
  const policy = await policyAt(store, main)
  const input = {candidate: val.candidate.body as EvaluationBody & {comparison: Comparison}, baseline: val.baseline.body}
  const checks: Check[] = validationChecks(policy.policy, input)
  const evaluations = [val.candidate.id, val.baseline.id]
  let holdout: PromoteResult['holdout']
  const already = await findPromotion(store, main, proposal.id)
  if (!already && main !== p.base.commit) checks.push({name: 'based on the current main', passed: false, detail: `main moved from ${p.base.commit.slice(0, 12)} to ${main.slice(0, 12)}: rebase the patch and evaluate it again`})
  if (checks.every(c => c.passed)) {
    const h = await evaluateProposal(store, proposal, 'holdout', o)
    holdout = {baseline: h.baseline.success_rate, candidate: h.candidate.success_rate, evaluations: [h.candidate.evaluation, h.baseline.evaluation]}
    evaluations.push(...holdout.evaluations)
    checks.push(...holdoutChecks(policy.policy, {...input, holdout: {candidate: h.candidate.body, baseline: h.baseline.body}}))
  }
  const {verdict, reasons} = verdictOf(checks)
  const body: DecisionBody = {
    proposal: proposal.id,
    verdict,
    policy: {version: policy.version, digest: policy.digest, path: policy.path, blob: policy.blob},
    evaluations,
    checks,
    reasons,
    regressions: input.candidate.comparison.regressions,
    ...(p.hypothesis ? {hypothesis: p.hypothesis} : {}),
  }
  if (holdout) body.holdout_looks = (await store.ledger()).load<'evaluation'>(holdout.evaluations[0]!).body.holdout_looks ?? 1
  if (verdict === 'accept') {
    const merge = already ?? (await mergeProposal(store, proposal, {main, mainRef: o.mainRef, evaluations, policy, validation: input, onMain}))
    body.merge = {commit: merge, branch: p.branch}
  } else {
    const ref = `${REJECTED_PREFIX}${proposal.id}`
    const have = await readRef(store.commonDir, ref)
    if (have !== p.head.commit) await moveRef(store, ref, p.head.commit, have)
    await deleteRef(store, `refs/heads/${p.branch}`)
    body.rejected_ref = ref
  }
  const cites = [proposal.id, ...(p.hypothesis ? [p.hypothesis] : []), ...evaluations]
  const decision = (await store.append({kind: 'decision', body, cites}, {lane: o.lane, now: o.now})).id
  return {decision, verdict, checks, reasons, merge: body.merge?.commit, rejected_ref: body.rejected_ref, holdout, validation: {baseline: input.baseline.success_rate, candidate: input.candidate.success_rate}}
}

async function mergeProposal(store: GitRecordStore, proposal: ExpRecord<'proposal'>, o: {main: string; mainRef: string; evaluations: string[]; policy: LoadedPolicy; validation: {candidate: EvaluationBody; baseline: EvaluationBody}; onMain: boolean}): Promise<string> {
  const p = proposal.body
  const purpose = await readPurposeAt(store, p.head.commit, p.skill)
  const accepted = {...purpose, status: 'accepted' as const, evaluation: {previous_score: o.validation.baseline.success_rate, candidate_score: o.validation.candidate.success_rate, evaluations: o.evaluations}}
  const version = purpose.version
  const message = `exp: promote ${p.skill} v${version} (${proposal.id})\n\nvalidation ${(o.validation.baseline.success_rate * 100).toFixed(1)}% -> ${(o.validation.candidate.success_rate * 100).toFixed(1)}%, ${p.patch.size.added} line(s) added in ${p.patch.sections.join(', ')}.\n${p.reason}\n\nExp-Promotes: ${proposal.id}\nExp-Evidence: ${o.evaluations.join(' ')}\nExp-Policy: ${o.policy.version} ${o.policy.digest}\n`
  // the proposal is based on main's tip (checked above), so the merge tree is the branch's tree plus PURPOSE.yaml marked accepted
  const merge = await commitFiles(store, {base: p.head.commit, parents: [o.main, p.head.commit], message, files: [{path: purposePath(p.skill), content: Buffer.from(purposeText(accepted))}]})
  await moveRef(store, o.mainRef, merge, o.main)
  if (o.onMain) await updateWorkTree(store, o.main, merge)
  return merge
}

function resultOf(d: ExpRecord<'decision'>, val: {candidate: ExpRecord<'evaluation'>; baseline: ExpRecord<'evaluation'>}): PromoteResult {
  return {decision: d.id, verdict: d.body.verdict, checks: d.body.checks, reasons: d.body.reasons, merge: d.body.merge?.commit, rejected_ref: d.body.rejected_ref, validation: {baseline: val.baseline.body.success_rate, candidate: val.candidate.body.success_rate}}
}
