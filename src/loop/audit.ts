import {assertResearchFile, digestOf, parseYamlOrJson, recordId, type ExpRecord} from '../records/index.js'
import type {PromotionPolicy, ProposalBody, RecallBody} from '../records/types.js'
import {hashObject} from '../records/object-id.js'
import type {Ledger, RecordStore, RepoPaths} from '../store/index.js'
import type {Workspace} from '../workspace/port.js'
import {NotFoundError} from '../errors/index.js'
import {wilson} from '../evals/stats/index.js'
import {diffSize, unifiedDiff} from '../skills/index.js'
import {loadAuthority, POLICY_PATH} from '../trust/load.js'
import {evaluateProposal, loadProposal, type EvalRunOptions} from './evaluate.js'
import {loadPolicy, promoteProposal} from './promote.js'
import {proposedPurpose, purposePath, purposeText, skillPath, unknownSkill} from './files.js'
import {readPurposeAt} from './proposal.js'
import {NULL_KINDS, nullVariant, type NullKind} from './audit-null.js'

export interface AuditOptions extends EvalRunOptions {
  trials: number
  skill: string
  mainRef: string
  /** a policy file to audit instead of the one on the main branch: its text and where it came from */
  policy?: {text: string; file: string}
  /** held-out repetitions of a promotion (as exp evolve's --eval-repeat) */
  evalRepeat: number
  /** keep the scratch repository (for inspection) instead of removing it */
  keep?: boolean
  onTrial?: (t: AuditTrial) => void
  /** a throw-away copy of the repository at main (with git: a shared bare clone, research/scratch.ts) */
  scratch: (o: {mainRef: string; keep: boolean}) => Promise<Scratch>
}

/**
 * Where the null candidates go: a copy of the repository whose records, branches and
 * promotion merges never reach the repository itself. `where` names it when it is kept.
 */
export interface Scratch {
  store: RecordStore
  ws: Workspace
  repo?: RepoPaths
  where?: string
  /** close it, and remove it unless it is kept */
  close(): Promise<void>
}

export interface AuditTrial {
  trial: number
  kind: NullKind
  seed: number
  proposal: string
  verdict: 'accept' | 'reject'
  /** the check that decided, with its numbers */
  decided_by?: string
  validation: {baseline: number; candidate: number; wins: number; losses: number; pairs: number; passes?: number}
  holdout?: {baseline: number; candidate: number}
  episodes: number
}

export interface PromotionGap {
  decision: string
  proposal: string
  validation_gain: number
  holdout_gain: number
  /** validation gain minus held-out gain: how much the selection on validation overstated the change */
  gap: number
}

export interface AuditResult {
  trials: number
  agent: string
  policy: {version: string; digest: string; source: string}
  promoted: number
  false_promotion_rate: number
  interval: {low: number; high: number; method: 'wilson'; level: number}
  by_kind: Record<NullKind, {trials: number; promoted: number}>
  /** how often each check decided a trial (a reject's first failure, an accept's test) */
  decided_by: Record<string, number>
  episodes: {total: number; per_trial: number; validation_pairs_per_trial: number}
  /** over the real promotions in this repository: validation gain against held-out gain */
  promotions: {count: number; mean_validation_gain?: number; mean_holdout_gain?: number; mean_gap?: number; list: PromotionGap[]}
  scratch?: string
  details: AuditTrial[]
}

const LANE = 'audit'

/**
 * `exp audit-gate`: an A/A audit of the promotion gate. N null candidates (a no-op, a
 * rewording, a shuffle of rules: nothing the agent is asked changes) go through the whole
 * promotion path — proposal branch, paired validation under the policy's design, the policy,
 * held-out, merge or reject — in a scratch copy of the main branch, each trial with seeds of
 * its own, under the agent's noise. Every promotion is a false one: their share, with its
 * Wilson interval, is the gate's false-promotion rate. Nothing reaches the repository.
 * Alongside: over the real promotions of this repository, how much larger the validation gain
 * was than the held-out gain (what choosing on validation overstates).
 */
export async function auditGate(store: RecordStore, ws: Workspace, o: AuditOptions): Promise<AuditResult> {
  const main = await ws.readRef(o.mainRef)
  if (!main) throw new NotFoundError('branch', o.mainRef, 'commit the skill and .research/ first (`exp init --example onboarding`)')
  const skillText = await ws.readFile(main, skillPath(o.skill))
  if (!skillText) throw await unknownSkill(ws, main, o.mainRef, o.skill)
  let override: PromotionPolicy | undefined
  if (o.policy) {
    override = (await parseYamlOrJson(o.policy.text, o.policy.file)) as PromotionPolicy
    assertResearchFile('policy', override, o.policy.file)
  }
  const ledger = await store.ledger()
  const promotions = promotionGaps(ledger, (await loadAuthority(ledger, ws, {at: main})).admit)
  const {store: scratch, ws: sws, repo: scratchRepo, where, close} = await o.scratch({mainRef: o.mainRef, keep: !!o.keep})
  try {
    let base = main
    if (o.policy) {
      base = await sws.commitFiles({base: main, parents: [main], files: [{path: POLICY_PATH, content: Buffer.from(o.policy.text)}], message: `audit: the policy under audit (${o.policy.file})\n`})
      await sws.moveRef(o.mainRef, base, main)
    }
    const policy = await loadPolicy(sws, base)
    const recall = (await scratch.append({kind: 'recall', body: emptyRecall(o.skill), cites: []}, {lane: LANE, now: o.now})).id
    const details: AuditTrial[] = []
    const {trials: _n, skill: _s, mainRef: _m, policy: _p, evalRepeat: _e, keep: _k, onTrial: _t, scratch: _c, ...rest} = o
    const run = {...rest, ...(scratchRepo ? {repo: scratchRepo} : {})}
    for (let trial = 0; trial < o.trials; trial++) {
      const t = await oneTrial(scratch, sws, run, {skill: o.skill, mainRef: o.mainRef, evalRepeat: o.evalRepeat, base, recall, trial, text: skillText.toString('utf8'), rules: policy.policy})
      details.push(t)
      o.onTrial?.(t)
    }
    const promoted = details.filter(d => d.verdict === 'accept').length
    const w = wilson(promoted, o.trials)
    const byKind = Object.fromEntries(NULL_KINDS.map(k => [k, {trials: details.filter(d => d.kind === k).length, promoted: details.filter(d => d.kind === k && d.verdict === 'accept').length}])) as AuditResult['by_kind']
    const decidedBy: Record<string, number> = {}
    for (const d of details) if (d.decided_by) decidedBy[d.decided_by] = (decidedBy[d.decided_by] ?? 0) + 1
    const total = details.reduce((s, d) => s + d.episodes, 0)
    return {
      trials: o.trials,
      agent: o.agent,
      policy: {version: policy.version, digest: policy.digest, source: o.policy ? o.policy.file : `${o.mainRef.replace(/^refs\/heads\//, '')}:${POLICY_PATH}`},
      promoted,
      false_promotion_rate: o.trials ? promoted / o.trials : 0,
      interval: {low: round(w.low), high: round(w.high), method: 'wilson', level: 0.95},
      by_kind: byKind,
      decided_by: decidedBy,
      episodes: {total, per_trial: o.trials ? round(total / o.trials) : 0, validation_pairs_per_trial: o.trials ? round(details.reduce((s, d) => s + d.validation.pairs, 0) / o.trials) : 0},
      promotions,
      ...(o.keep && where ? {scratch: where} : {}),
      details,
    }
  } finally {
    await close()
  }
}

function emptyRecall(skill: string): RecallBody {
  return {purpose: 'audit-gate: a null candidate recalls nothing', scope: {skill, workflows: []}, budget: {items: 0, tokens: 0}, used: {items: 0, tokens: 0}, snapshot: {lamport: 0, knowledge: 0}, items: [], excluded: []}
}

/** One null candidate through the promotion path, on main as it was (a false promotion is undone after it is counted). */
async function oneTrial(store: RecordStore, ws: Workspace, options: EvalRunOptions, o: {skill: string; mainRef: string; evalRepeat: number; base: string; recall: string; trial: number; text: string; rules: PromotionPolicy}): Promise<AuditTrial> {
  const kind = NULL_KINDS[o.trial % NULL_KINDS.length]!
  const seed = (options.seed ?? 42) + 1 + o.trial
  const text = nullVariant(o.text, kind, o.trial)
  const file = skillPath(o.skill)
  const key = `audit-gate/${o.base}/${o.trial}`
  const id = recordId('proposal', '', key)
  // (a proposal's branch is its own: exp/proposal/[NAMESPACE/]<id>, proposal-scope.ts)
  const branch = `exp/proposal/audit/${id}`
  // its PURPOSE.yaml what `exp propose` writes for its record, as eval and promote require (proposal-files.ts)
  const proposer = {name: 'audit-gate', version: '1'}
  const from = (await readPurposeAt(ws, o.base, o.skill)).version
  const purpose = proposedPurpose({skill: o.skill, version: from + 1, knowledge: [], proposer, lane: LANE, proposal: id})
  const head = await ws.commitFiles({base: o.base, parents: [o.base], files: [{path: file, content: Buffer.from(text)}, {path: purposePath(o.skill), content: Buffer.from(purposeText(purpose))}], message: `audit: null candidate ${o.trial} (${kind})\n`})
  await ws.moveRef(`refs/heads/${branch}`, head, await ws.readRef(`refs/heads/${branch}`))
  const body: ProposalBody = {
    skill: o.skill,
    branch,
    base: {commit: o.base, skill_blob: hashObject('blob', Buffer.from(o.text)), version: String(from)},
    head: {commit: head, skill_blob: hashObject('blob', Buffer.from(text)), version: String(from + 1)},
    patch: {diff: unifiedDiff(o.text, text, file), edits: [], size: diffSize(o.text, text), sections: [], normalized: digestOf({null: kind, trial: o.trial})},
    reason: `audit-gate: null candidate ${o.trial} (${kind}): nothing the agent is asked changes`,
    knowledge: [],
    recall: o.recall,
    proposer,
  }
  const before = traces(await store.ledger())
  const written = (await store.append({kind: 'proposal', key, body, cites: [o.recall]}, {lane: LANE, now: options.now})).id
  const proposal: ExpRecord<'proposal'> = loadProposal(await store.ledger(), written)
  const run = {...options, lane: LANE, seed, repeat: o.evalRepeat}
  const ev = await evaluateProposal(store, ws, proposal, 'validation', {...run, policy: o.rules})
  const dec = await promoteProposal(store, ws, await store.ledger(), proposal, {...run, mainRef: o.mainRef})
  // a false promotion moved main: put it back, so every trial judges the same base
  if (dec.merge) await ws.moveRef(o.mainRef, o.base, dec.merge)
  const c = ev.comparison
  return {
    trial: o.trial,
    kind,
    seed,
    proposal: written,
    verdict: dec.verdict,
    ...(dec.decided_by ? {decided_by: dec.decided_by.name} : {}),
    validation: {baseline: ev.baseline.success_rate, candidate: ev.candidate.success_rate, wins: c.wins, losses: c.losses, pairs: c.wins + c.losses + c.ties, ...(ev.sequential ? {passes: ev.sequential.look} : {})},
    ...(dec.holdout ? {holdout: {baseline: dec.holdout.baseline, candidate: dec.holdout.candidate}} : {}),
    episodes: traces(await store.ledger()) - before,
  }
}

function traces(ledger: Ledger): number {
  return ledger.select({kinds: ['trace'], includePrivate: true}).length
}

/**
 * The real promotions of a repository (accept decisions that stand, with a validation and a
 * held-out pair): validation gain, held-out gain, and the gap between them.
 */
export function promotionGaps(ledger: Ledger, admit: (id: string) => boolean = () => true): AuditResult['promotions'] {
  const list: PromotionGap[] = []
  for (const e of ledger.select({kinds: ['decision']})) {
    if (!admit(e.id)) continue
    const d = ledger.load<'decision'>(e).body
    if (d.verdict !== 'accept' || d.proposal.startsWith('at-')) continue
    const evs = d.evaluations.flatMap(id => (ledger.get(id)?.kind === 'evaluation' ? [ledger.load<'evaluation'>(id).body] : []))
    const rate = (split: string, role: string) => evs.find(x => x.split === split && x.role === role)?.success_rate
    const [vc, vb, hc, hb] = [rate('validation', 'candidate'), rate('validation', 'baseline'), rate('holdout', 'candidate'), rate('holdout', 'baseline')]
    if (vc === undefined || vb === undefined || hc === undefined || hb === undefined) continue
    list.push({decision: e.id, proposal: d.proposal, validation_gain: round(vc - vb), holdout_gain: round(hc - hb), gap: round(vc - vb - (hc - hb))})
  }
  const mean = (xs: number[]) => (xs.length ? round(xs.reduce((s, x) => s + x, 0) / xs.length) : undefined)
  const gaps = {mean_validation_gain: mean(list.map(x => x.validation_gain)), mean_holdout_gain: mean(list.map(x => x.holdout_gain)), mean_gap: mean(list.map(x => x.gap))}
  return {count: list.length, ...(list.length ? (gaps as Required<typeof gaps>) : {}), list}
}

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6
}
