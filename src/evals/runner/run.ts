import {loadAgent, type AgentOptions} from '../../agents/registry.js'
import type {Agent} from '../../agents/types.js'
import {prepare, type RecordDraft} from '../../records/index.js'
import type {AgentRef, EvaluationBody, ManifestBody, SkillRef, Split, VerificationBody} from '../../records/types.js'
import {defaultKeyFile, findHoldoutKey, type HoldoutKey, type Problem} from '../../scenarios/index.js'
import type {Ledger, RecordStore, RepoPaths} from '../../store/index.js'
import {sha256Hex} from '../../records/digest.js'
import {GRADER_VERSION} from '../grader/version.js'
import {WORLD_VERSION, TOOL_CATALOG_DIGEST} from '../../world/catalog.js'
import {worldEvaluator} from '../evaluator/world.js'
import {makeRedactor, type Redact} from '../../redact/index.js'
import {episodeSeed} from '../prompt.js'
import {loadDataset} from './dataset.js'
import {resolveSkill, type ResolvedSkill} from './skill.js'
import {episodeDrafts, laneKey, manifestDraft} from './records.js'
import {summarize, publicAggregate, evidenceOf, type VerifiedEpisode} from './summary.js'
import {planEpisodes} from './plan.js'
import {RunEvents} from './events.js'
import {assertSomeRan, retryInfrastructure} from './attempts.js'
import type {EventSink} from '../../events/index.js'
import {manifestMemory, skillsWithRecall, type RunMemory} from './memory.js'

export const EXP_VERSION = '0.1.0'

export interface RunOptions {
  split: Split
  agent: string
  skill?: string
  repeat?: number
  concurrency?: number
  scenariosDir: string
  skillsDir: string
  seed?: number
  lane: string
  cwd: string
  repo?: RepoPaths
  purpose?: ManifestBody['purpose']
  role?: EvaluationBody['role']
  proposal?: string
  iteration?: number
  strict?: boolean
  maxSteps?: number
  /** run again the episodes whose latest attempt failed for infrastructure reasons (default true) */
  retryInvalid?: boolean
  /** episodes per append batch (one lock, one pack) */
  batch?: number
  agentOptions?: AgentOptions
  /** last word on the (full) evaluation body before it is recorded, e.g. to add a paired comparison */
  decorate?: (full: EvaluationBody, verified: readonly VerifiedEpisode[]) => EvaluationBody
  /** the held-out key, when the held-out split is sealed (findHoldoutKey) */
  holdoutKey?: HoldoutKey
  /** verified (default): reuse recorded episodes that replay to the same verdict; none: run every episode (the gate) */
  reuse?: 'verified' | 'none'
  /** applied to all text that comes from the agent before it is recorded (default: secrets of process.env, key shapes, home paths) */
  redact?: Redact
  /** lifecycle events (attempt, observation, verification per episode, then the summary) */
  events?: EventSink
  /** the loop iteration named in events (unlike `iteration`, not part of the manifest) */
  eventIteration?: number
  /** the memory snapshot the run was decided on, named in its events */
  snapshot?: string
  /** the memory mode and what was recalled into the agent's context (src/evals/runner/memory.ts); default: record_only, nothing recalled */
  memory?: RunMemory | ((skill: ResolvedSkill) => Promise<RunMemory>)
  /** the isolated namespace of an `exp compare` arm, pinned by the manifest */
  namespace?: string
  now?: () => Date
  onProgress?: (p: RunProgress) => void
}

export interface RunProgress {
  total: number
  done: number
  passed: number
  invalid: number
  resumed: number
}

export interface RunResult {
  manifest: string
  /** the evaluation on the public lane (for held-out: the aggregate only) */
  evaluation: string
  /** held-out only: the full evaluation on the private lane */
  private_evaluation?: string
  split: Split
  total: number
  passed: number
  invalid: number
  success_rate: number
  ci: [number, number]
  resumed: number
  /** episodes run again because their last attempt failed for infrastructure reasons */
  retried: number
  recorded: number
  skill: SkillRef
  agent: AgentRef
  body: EvaluationBody
  /** every episode's verification (id and body), sorted by id */
  verified: VerifiedEpisode[]
  problems: Problem[]
}

/**
 * `exp run`: one manifest, then a trace and the grader's verification per episode, then the
 * evaluation summary. Resumable and idempotent: episode ids derive from (manifest,
 * scenario, repetition), so a rerun after a kill records only the missing episodes.
 * Held-out traces and verifications go to the lane's private ref; the public lane gets
 * the manifest and the aggregate only.
 */
export async function runEvaluation(store: RecordStore, o: RunOptions): Promise<RunResult> {
  const now = o.now ?? (() => new Date())
  const repeat = o.repeat ?? 1
  const seed = o.seed ?? 42
  const redact = o.redact ?? makeRedactor({env: process.env})
  const key = o.holdoutKey ?? (o.split === 'holdout' && o.repo ? await findHoldoutKey({env: process.env, defaultFile: defaultKeyFile(o.repo.commonDir)}) : undefined)
  const dataset = await loadDataset(o.scenariosDir, o.split, {strict: o.strict, key})
  const skill: ResolvedSkill = await resolveSkill(o.skill, {cwd: o.cwd, skillsDir: o.skillsDir, repo: o.repo})
  const memory = typeof o.memory === 'function' ? await o.memory(skill) : o.memory
  const agent: Agent = await loadAgent(o.agent, o.agentOptions)
  let ev: RunEvents | undefined
  try {
    const agentRef: AgentRef = {name: agent.name, ...(agent.model ? {model: agent.model} : {}), ...(agent.params ? {params: agent.params} : {})}
    const skillRef: SkillRef = {name: skill.name, blob: skill.blob, path: skill.source, ...(skill.commit ? {commit: skill.commit} : {})}
    const held = o.split === 'holdout'
    const skills = skillsWithRecall(skill, memory)
    const evaluator = worldEvaluator.identity
    const manifestBody: ManifestBody = {
      purpose: o.purpose ?? 'run',
      split: o.split,
      // held-out scenario ids stay private: the tree id (with the sealed file's blob) pins the data
      dataset: {tree: dataset.tree, scenarios: held ? [] : dataset.scenarios.map(s => s.id), path: 'scenarios', ...(dataset.sealed ? {sealed: {path: dataset.sealed.path, blob: dataset.sealed.blob}} : {})},
      skill: skillRef,
      environment: {world: WORLD_VERSION, grader: GRADER_VERSION, tools: TOOL_CATALOG_DIGEST, tool_version: EXP_VERSION},
      agent: agentRef,
      evaluator,
      seed,
      repeat,
      // the manifest pins what ran (skill, data, agent, seed, limits), not why: the same skill on the
      // same split is the same experiment, whether it is a baseline, a candidate or a plain run, so
      // its episodes (and its held-out look) are reused
      ...(o.maxSteps ? {limits: {max_steps: o.maxSteps}} : {}),
      ...(o.iteration !== undefined ? {iteration: o.iteration} : {}),
      // what the agent recalled is part of what ran: another recall is another experiment
      ...manifestMemory(memory),
      ...(o.namespace ? {namespace: o.namespace} : {}),
    }
    const manifest = (await store.append(manifestDraft(manifestBody), {lane: o.lane, now})).id
    if (o.events?.enabled) ev = new RunEvents(o.events, {run: manifest, iteration: o.iteration ?? o.eventIteration, snapshot: o.snapshot})
    const ledger = await store.ledger()
    const episodes = retryInfrastructure(ledger, planEpisodes(ledger, {manifest, scenarios: dataset.scenarios, repeat, lane: o.lane, reuse: o.reuse ?? 'verified', evaluators: [evaluator.id]}), {manifest, scenarios: dataset.scenarios, evaluators: [evaluator.id], retry: o.retryInvalid ?? true})
    const verified: VerifiedEpisode[] = [...episodes.reused]
    // each lane starts at its own place in the plan: lanes running the same experiment at
    // once meet instead of racing through the same episodes (the records do not depend on order)
    const pending = rotate(episodes.pending, o.lane)
    const resumed = verified.length
    const progress: RunProgress = {total: episodes.total, done: resumed, passed: verified.filter(v => v.body.passed).length, invalid: verified.filter(v => !v.body.valid).length, resumed}
    o.onProgress?.({...progress})
    ev?.started({split: o.split, episodes: episodes.total, resumed, privateScenarios: held ? dataset.scenarios.map(s => s.id) : undefined})
    let recorded = 0
    let buffer: Done[] = []
    const started = new Set<string>()
    let lastFlush = performance.now()
    const count = (v: VerificationBody) => {
      progress.done++
      if (v.valid && v.passed) progress.passed++
      if (!v.valid) progress.invalid++
    }
    const flush = async () => {
      lastFlush = performance.now()
      if (!buffer.length) return
      const batch = buffer
      buffer = []
      // an id already taken by other bytes (a forged or foreign record) moves the episode to this lane's own key
      const ledger = await store.ledger()
      const drafts = batch.flatMap(b => {
        const d = b.drafts.find(x => isTaken(ledger, x)) ? b.rekey() : b.drafts
        b.final = d
        return d
      })
      const results = await store.appendBatch(drafts, {lane: o.lane, private: held, now})
      for (const b of batch) verified.push(verifiedOf(b.final!))
      const fresh = drafts.filter((_, i) => results[i]!.status === 'created' || results[i]!.lane === o.lane)
      recorded += fresh.filter(d => d.kind === 'trace').length
      ev?.episodes(fresh)
      // another lane is recording this very experiment: take what stands of it, skip it here
      if (o.reuse !== 'none' && results.some(r => r.status === 'exists' && r.lane !== o.lane)) {
        const more = planEpisodes(await store.ledger(), {manifest, scenarios: dataset.scenarios, repeat, lane: o.lane, reuse: 'verified', evaluators: [evaluator.id]})
        for (const r of more.reused) {
          if (started.has(r.slot)) continue
          started.add(r.slot)
          verified.push(r)
          count(r.body)
        }
        o.onProgress?.({...progress})
      }
    }
    let next = 0
    const worker = async () => {
      while (next < pending.length) {
        const p = pending[next++]!
        if (started.has(p.slot)) continue
        started.add(p.slot)
        const t0 = performance.now()
        const r = await worldEvaluator.judge({scenario: p.scenario, agent, skills, seed: episodeSeed(seed, p.rep), repetition: p.rep, redact, ...(o.maxSteps ? {maxSteps: o.maxSteps} : {})})
        const wallMs = performance.now() - t0
        const draftsFor = (key: string) => {
          const d = episodeDrafts(r, {manifest, agent: agentRef, skill: skillRef, wallMs, key, sealTask: held})
          return [d.trace, d.verification] as [RecordDraft<'trace'>, RecordDraft<'verification'>]
        }
        buffer.push({slot: p.slot, drafts: draftsFor(p.key), rekey: () => draftsFor(laneKey(p.baseKey, o.lane))})
        count(r.verdict as VerificationBody)
        o.onProgress?.({...progress})
        // a full batch, or a second's worth: slow agents still show their work to other lanes
        if (buffer.length >= (o.batch ?? 64) || performance.now() - lastFlush >= 1000) await flush()
      }
    }
    await Promise.all(Array.from({length: Math.max(1, Math.min(o.concurrency ?? 4, pending.length || 1))}, worker))
    await flush()
    verified.sort((a, b) => (a.id < b.id ? -1 : 1))
    assertSomeRan(verified, agentRef.name)
    const base = {manifest, split: o.split, skill: skillRef, agent: agentRef, ...(o.role ? {role: o.role} : {}), ...(o.proposal ? {proposal: o.proposal} : {})}
    const summary = {...summarize(verified, base, repeat), evaluator, evidence: evidenceOf(verified)}
    const full = o.decorate ? o.decorate(summary, verified) : summary
    let evaluation: string
    let privateEvaluation: string | undefined
    if (held) {
      const looks = holdoutLooks(await store.ledger(), manifest)
      privateEvaluation = (await store.append({kind: 'evaluation', body: {...full, holdout_looks: looks}, cites: [manifest, ...verified.map(v => v.id)]}, {lane: o.lane, private: true, now})).id
      const {comparison: _private, ...pub} = publicAggregate(full, dataset.sealed?.key)
      evaluation = (await store.append({kind: 'evaluation', body: {...pub, holdout_looks: looks}, cites: [manifest]}, {lane: o.lane, now})).id
    } else {
      evaluation = (await store.append({kind: 'evaluation', body: full, cites: [manifest, ...verified.map(v => v.id)]}, {lane: o.lane, now})).id
    }
    ev?.recorded([{id: evaluation}, ...(privateEvaluation ? [{id: privateEvaluation, private: true}] : [])])
    ev?.completed({total: full.total, passed: full.passed, invalid: full.invalid, recorded})
    return {
      manifest,
      evaluation,
      ...(privateEvaluation ? {private_evaluation: privateEvaluation} : {}),
      split: o.split,
      total: full.total,
      passed: full.passed,
      invalid: full.invalid,
      success_rate: full.success_rate,
      ci: full.ci as [number, number],
      resumed,
      retried: episodes.retried,
      recorded,
      skill: skillRef,
      agent: agentRef,
      body: full,
      verified,
      problems: dataset.problems,
    }
  } catch (e) {
    ev?.failed(e)
    throw e
  } finally {
    await agent.close?.()
  }
}

interface Done {
  slot: string
  drafts: RecordDraft[]
  rekey: () => RecordDraft[]
  final?: RecordDraft[]
}

function isTaken(ledger: Ledger, d: RecordDraft): boolean {
  const p = prepare(d)
  const e = ledger.get(p.id)
  return !!e && e.digest !== p.digest
}

function verifiedOf(drafts: readonly RecordDraft[]): VerifiedEpisode {
  const v = prepare(drafts[1]!)
  return {id: v.id, digest: v.digest, body: v.draft.body as VerificationBody}
}

/**
 * How many times the sealed held-out split has been looked at, this look included: the
 * number of distinct held-out experiments (manifests) evaluated so far. Evaluating the same
 * manifest again — a rerun, or the same skill as baseline of the next proposal — is the same
 * look, not a new one.
 */
function holdoutLooks(ledger: Ledger, manifest: string): number {
  const seen = new Set<string>()
  for (const e of ledger.select({kinds: ['evaluation']})) {
    const r = ledger.load<'evaluation'>(e)
    if (r.body.split !== 'holdout' || e.private) continue
    if (r.body.manifest === manifest) return r.body.holdout_looks ?? seen.size + 1
    seen.add(r.body.manifest)
  }
  return seen.size + 1
}

/** The plan from a place that depends on the lane only: the same order for the same lane. */
function rotate<T>(items: T[], lane: string): T[] {
  if (items.length < 2) return items
  const at = Number.parseInt(sha256Hex(`lane\0${lane}`).slice(0, 8), 16) % items.length
  return [...items.slice(at), ...items.slice(0, at)]
}
