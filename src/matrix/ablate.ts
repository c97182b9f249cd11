import {hashObject} from '../records/object-id.js'
import {recordId, type RecordDraft} from '../records/index.js'
import type {HypothesisBody, ProposalBody, Split} from '../records/types.js'
import {ownEntry, ownKey, type Ledger, type RecordStore} from '../store/index.js'
import type {Workspace} from '../workspace/port.js'
import {ExpError, NotFoundError} from '../errors/index.js'
import {parseRule, renderRule} from '../knowledge/index.js'
import {blame, type Blame} from '../projections/blame.js'
import {skillTimeline} from '../projections/mainline.js'
import {readBlameInput, readMainline} from '../reports/sources.js'
import {parseSkill, renderPatch, type SkillPatch} from '../skills/index.js'
import {buildRecall} from '../loop/recall.js'
import {readPurposeAt} from '../loop/proposal.js'
import {proposedPurpose, purposePath, purposeText, skillPath, unknownSkill} from '../loop/files.js'
import type {EvalRunOptions} from '../loop/evaluate.js'
import {measureVariants, shortHash, withoutLines, type VariantEffect, type VariantRun} from './variants.js'

/**
 * `exp ablate SKILL[@VERSION]` (docs/matrix.md, "Ablation"): leave one rule out, and leave
 * one patch out (the lines a promotion added that are still there), each run on validation
 * and held-out against the skill as it is, paired. A unit's credit is what removing it costs
 * (skill − variant). Every run is an evaluation record; the credits are one note record
 * citing them (its id derived from its content: one per distinct run), which `exp blame
 * --credit` and `exp report` read. A rule whose removal costs nothing on any split is a removal
 * candidate; the lowest-credit one is offered as an ordinary proposal (branch
 * exp/proposal/<id>) that the normal eval/promote path judges.
 */
export const ABLATION_PROPOSER = {name: 'ablation', version: '1'}

export interface AblationUnit {
  id: string
  kind: 'rule' | 'patch'
  /** 1-based lines of SKILL.md at the ablated commit */
  lines: number[]
  text: string[]
  /** rule units: the rule's canonical line */
  rule?: string
  /** patch units: the proposal whose promotion added the lines, and the version it made */
  proposal?: string
  version?: number
}

export interface UnitSplitCredit {
  credit: number
  ci: [number, number]
  wins: number
  losses: number
  episodes: number
  rate: number
  evaluation: string
}

export interface UnitCredit extends AblationUnit {
  credit: Partial<Record<Split, UnitSplitCredit>>
  /** removing it did not lower success on any split measured */
  removal: boolean
}

export interface Ablation {
  skill: string
  version: number
  commit: string
  blob: string
  path: string
  agent: string
  seed: number
  repeat: number
  splits: Split[]
  baseline: Partial<Record<Split, VariantRun['baseline']>>
  units: UnitCredit[]
  /** removal candidates (rule units), lowest credit first */
  candidates: string[]
  /** the note record holding the credits */
  note: string
  /** the removal of the lowest-credit candidate, as a proposal */
  proposal?: {id: string; branch: string; unit: string; rule: string}
  /** why no proposal was made */
  no_proposal?: string
  recorded: number
}

export interface AblateOptions extends EvalRunOptions {
  skill: string
  mainRef: string
  /** default: the latest version */
  version?: number
  splits: Split[]
  repeat: number
  /** offer the lowest-credit removal candidate as a proposal (default true) */
  propose?: boolean
  onStep?: (s: string) => void
}

/** `SKILL[@VERSION]` → name and version; a clear error for anything else. */
export function parseSkillAtVersion(spec: string): {skill: string; version?: number} {
  const m = /^([a-z0-9][a-z0-9-]*)(?:@(?:v)?([0-9]+))?$/.exec(spec)
  if (!m) throw new ExpError('E_USAGE', `not a skill spec: ${JSON.stringify(spec)}`, {hint: 'write SKILL or SKILL@VERSION, e.g. onboarding or onboarding@3'})
  const version = m[2] === undefined ? undefined : Number(m[2])
  if (version !== undefined && version < 1) throw new ExpError('E_USAGE', `no version 0 of ${m[1]}: versions count from 1`, {hint: `exp provenance ${m[1]} lists them`})
  return {skill: m[1]!, ...(version !== undefined ? {version} : {})}
}

/** A workspace in which one ref name reads as a fixed commit (blame and mainline at a version). */
function pinned(ws: Workspace, ref: string, commit: string): Workspace {
  return new Proxy(ws, {
    get(target, prop) {
      if (prop === 'readRef') return async (r: string) => (r === ref ? commit : target.readRef(r))
      const v = Reflect.get(target, prop, target) as unknown
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v
    },
  })
}

/** The skill at a version of a main ref: its commit (the tip for the latest), text and blame. */
export async function skillAtVersion(ws: Workspace, ledger: Ledger, o: {mainRef: string; skill: string; version?: number}): Promise<{commit: string; version: number; latest: boolean; text: string; blame: Blame}> {
  const tip = await ws.readRef(o.mainRef)
  if (!tip) throw new NotFoundError('branch', o.mainRef, 'commit the skill on main first (`exp init --example onboarding` does)')
  const mainline = await readMainline(ws, o.mainRef, [o.skill])
  const timeline = skillTimeline(mainline, ledger, o.skill)
  if (!timeline.versions.length) throw await unknownSkill(ws, tip, o.mainRef, o.skill)
  const latest = timeline.versions.length
  const version = o.version ?? latest
  if (version > latest) throw new NotFoundError('skill version', `${o.skill}@${version}`, `${o.skill} has versions 1 to ${latest} on main`)
  const commit = version === latest ? tip : timeline.versions[version - 1]!.commit
  const PIN = 'refs/exp/ablate/pinned'
  const input = await readBlameInput(pinned(ws, PIN, commit), PIN, o.skill)
  const text = (await ws.readFile(commit, skillPath(o.skill)))!.toString('utf8')
  return {commit, version, latest: version === latest, text, blame: blame(ledger, input)}
}

const bare = (line: string) => line.trim().replace(/^(?:[-*+]|\d+[.)])\s+/, '')

/** Rule units (every line the rule grammar reads) and patch units (lines each promotion added, still there), pure. */
export function ablationUnits(text: string, b?: Blame): AblationUnit[] {
  const lines = text.split('\n')
  const units: AblationUnit[] = []
  const seen = new Set<string>()
  lines.forEach((l, i) => {
    const r = parseRule(l)
    if (!r) return
    let id = `rule-${shortHash(bare(l))}`
    while (seen.has(id)) id = `${id}x`
    seen.add(id)
    units.push({id, kind: 'rule', lines: [i + 1], text: [l], rule: renderRule(r)})
  })
  const byProposal = new Map<string, {version?: number; lines: number[]}>()
  for (const l of b?.lines ?? []) {
    if (l.origin !== 'promotion' || !l.proposal || !l.text.trim()) continue
    const p = byProposal.get(l.proposal) ?? {lines: [], ...(l.version !== undefined ? {version: l.version} : {})}
    p.lines.push(l.line)
    byProposal.set(l.proposal, p)
  }
  for (const [proposal, p] of [...byProposal].sort((a, b) => (a[1].version ?? 0) - (b[1].version ?? 0))) {
    units.push({id: `patch-${p.version !== undefined ? `v${p.version}` : proposal}`, kind: 'patch', lines: p.lines, text: p.lines.map(n => lines[n - 1]!), proposal, ...(p.version !== undefined ? {version: p.version} : {})})
  }
  return units
}

const creditOf = (e: VariantEffect): UnitSplitCredit => ({credit: e.credit, ci: e.ci, wins: e.wins, losses: e.losses, episodes: e.episodes, rate: e.rate, evaluation: e.evaluation})

/** Removal candidates among rule units (credit ≤ 0 on every split), lowest credit first (validation, then held-out, then line). */
export function removalCandidates(units: readonly UnitCredit[], splits: readonly Split[]): UnitCredit[] {
  const score = (u: UnitCredit) => splits.map(s => u.credit[s]?.credit ?? 0)
  return units
    .filter(u => u.removal && u.kind === 'rule')
    .sort((a, b) => {
      const x = score(a)
      const y = score(b)
      for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! - y[i]!
      return a.lines[0]! - b.lines[0]!
    })
}

export async function ablate(store: RecordStore, ws: Workspace, o: AblateOptions): Promise<Ablation> {
  const ledger = await store.ledger()
  const at = await skillAtVersion(ws, ledger, o)
  const path = skillPath(o.skill)
  const blob = parseSkillBlob(at.text)
  const units = ablationUnits(at.text, at.blame)
  if (!units.length) throw new ExpError('E_USAGE', `${o.skill}@${at.version} has no rule to ablate: no line of ${path} is a rule of the rule language`, {hint: 'docs/scripted-agent.md, "Rule grammar", lists the forms'})
  const variants = units.map(u => ({id: u.id, text: withoutLines(at.text, u.lines), label: `${o.skill}@${at.version} without ${u.kind} ${u.id} (line${u.lines.length > 1 ? 's' : ''} ${u.lines.join(', ')})`}))
  const runs: VariantRun[] = []
  for (const split of o.splits) runs.push(await measureVariants(store, ws, {...o, base: at.commit, path, split, variants, repeat: o.repeat}))
  const credited: UnitCredit[] = units.map(u => {
    const credit: UnitCredit['credit'] = {}
    for (const r of runs) credit[r.split] = creditOf(r.variants.find(v => v.id === u.id)!)
    return {...u, credit, removal: runs.every(r => credit[r.split]!.credit <= 0)}
  })
  const candidates = removalCandidates(credited, o.splits)
  const seed = o.seed ?? 42
  const baseline: Ablation['baseline'] = {}
  for (const r of runs) baseline[r.split] = r.baseline
  const cites = [...new Set(runs.flatMap(r => [r.baseline.evaluation, ...r.variants.map(v => v.evaluation)]))]
  const summary = {format: 'ablation@1', skill: o.skill, version: at.version, commit: at.commit, blob, agent: o.agent, seed, repeat: o.repeat, splits: o.splits, baseline, units: credited, candidates: candidates.map(c => c.id)}
  // content-addressed, not keyed: everything the note says (splits, version, commit, the
  // evaluations, which follow from the scenarios, the agent and every run option) is what makes
  // it this note, so the same run again is the same record and any other run (other splits,
  // another main with the same SKILL.md) one of its own; no key can be held against it
  const note: RecordDraft<'note'> = {kind: 'note', body: {text: JSON.stringify(summary), about: cites, action: 'comment'}, cites}
  const noteId = (await store.append(note, {lane: o.lane, now: o.now})).id
  const out: Ablation = {...summary, path, note: noteId, candidates: candidates.map(c => c.id), recorded: runs.reduce((s, r) => s + r.recorded, 0)}
  if (o.propose === false) out.no_proposal = 'not asked (--no-propose)'
  else if (!candidates.length) out.no_proposal = 'every rule earns its place: removing any one lowers success on some split'
  else if (!at.latest) out.no_proposal = `${o.skill}@${at.version} is not the current version: a proposal is made against main's tip (ablate ${o.skill} without @VERSION)`
  else out.proposal = await proposeRemoval(store, ws, {...o, base: at.commit, text: at.text, unit: candidates[0]!, version: at.version})
  return out
}

/** The blob id git gives the file: what manifests pin. */
const parseSkillBlob = (text: string): string => hashObject('blob', Buffer.from(text))

/** The removal of one rule as an ordinary proposal: a branch with one commit, a hypothesis, a recall (empty: no knowledge used), the proposal record. Idempotent: the lane's own proposal of the same removal on the same base, if it has one. */
async function proposeRemoval(store: RecordStore, ws: Workspace, o: AblateOptions & {base: string; text: string; unit: UnitCredit; version: number}): Promise<NonNullable<Ablation['proposal']>> {
  const path = skillPath(o.skill)
  const line = o.unit.lines[0]!
  const section = parseSkill(o.text).sections.filter(s => s.line <= line).pop()
  if (!section) throw new ExpError('E_USAGE', `line ${line} of ${path} is in no section`)
  const credits = o.splits.map(s => `${s} ${fmt(o.unit.credit[s]!.credit)} [${fmt(o.unit.credit[s]!.ci[0])}, ${fmt(o.unit.credit[s]!.ci[1])}]`).join('; ')
  const reason = `Leave-one-rule-out with ${o.agent}: removing this rule did not lower success (credit ${credits}); a shorter skill that does as well.`
  const patch: SkillPatch = {skill: o.skill, edits: [{op: 'remove', section: section.title, anchor: bare(o.unit.text[0]!), reason, knowledge: []}]}
  const rendered = renderPatch(o.text, patch, {path})
  // the same removal on the same base is the same proposal: one this lane made already (a run
  // with other splits or another agent offering it again, whose reason would state other
  // credits) is the answer, not a second record under its key
  const candidate = `proposal/${o.skill}/${o.base}/${rendered.normalized}`
  const before = await store.ledger()
  const made = ownEntry(before, 'proposal', candidate, o.lane)
  if (made) return {id: made.id, branch: before.load<'proposal'>(made).body.branch, unit: o.unit.id, rule: o.unit.rule!}
  // (the skill's PURPOSE.yaml at the base + 1, as `exp propose` counts: what eval and promote require, src/loop/proposal-files.ts)
  const from = (await readPurposeAt(ws, o.base, o.skill)).version
  const version = from + 1
  const now = o.now
  const recall = buildRecall([], {skill: o.skill, workflows: [], present: [], items: 1, tokens: 1})
  const recallId = (await store.append({kind: 'recall', body: recall.body, cites: recall.cites}, {lane: o.lane, now})).id
  const hypothesis: HypothesisBody = {
    statement: `Removing "${o.unit.rule}" from ${o.skill} keeps validation success while the skill gets shorter`,
    mechanism: reason,
    expected_effect: {metric: 'skill_lines', direction: 'decrease', split: 'validation'},
    conditions: [`${o.skill} at blob ${parseSkillBlob(o.text)}`],
    mechanism_family: 'removal',
    target: {skill: o.skill, workflows: [], paths: [path]},
    knowledge: [],
  }
  const hypothesisId = (await store.append({kind: 'hypothesis', body: hypothesis, cites: []}, {lane: o.lane, now})).id
  // (a key anyone can compute: this lane writes past a record another lane holds under it, store/own.ts)
  const ledger = await store.ledger()
  const key = ownKey(ledger, 'proposal', candidate, o.lane)
  const id = recordId('proposal', '', key)
  const branch = `exp/proposal/${id}`
  const nextPurpose = proposedPurpose({skill: o.skill, version, knowledge: [], proposer: ABLATION_PROPOSER, lane: o.lane, proposal: id})
  const head = await ws.commitFiles({
    base: o.base,
    message: `exp: propose ${o.skill} v${version}\n\n${reason}\n\nExp-Proposal: ${id}\nExp-Knowledge: \n`,
    files: [
      {path, content: Buffer.from(rendered.text)},
      {path: purposePath(o.skill), content: Buffer.from(purposeText(nextPurpose))},
    ],
  })
  const ref = `refs/heads/${branch}`
  const have = await ws.readRef(ref)
  if (have !== head && !ledger.get(id)) await ws.moveRef(ref, head, have)
  const body: ProposalBody = {
    skill: o.skill,
    branch,
    base: {commit: o.base, skill_blob: parseSkillBlob(o.text), version: String(from)},
    head: {commit: head, skill_blob: parseSkillBlob(rendered.text), version: String(version)},
    patch: {diff: rendered.diff, edits: rendered.edits as unknown as Record<string, unknown>[], size: rendered.size, sections: rendered.sections, normalized: rendered.normalized},
    reason,
    knowledge: [],
    recall: recallId,
    hypothesis: hypothesisId,
    proposer: ABLATION_PROPOSER,
  }
  await store.append({kind: 'proposal', key, body, cites: [recallId, hypothesisId, ...o.splits.map(s => o.unit.credit[s]!.evaluation)]}, {lane: o.lane, now})
  return {id, branch, unit: o.unit.id, rule: o.unit.rule!}
}

const fmt = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}`
