import {ExpError, UsageError} from '../../errors/index.js'
import {loadAgent} from '../../agents/registry.js'
import type {Agent} from '../../agents/types.js'
import {prepare, type RecordDraft} from '../../records/index.js'
import type {AgentRef, EvaluationBody, ManifestBody, SkillRef, VerificationBody} from '../../records/types.js'
import {defaultKeyFile, findHoldoutKey} from '../../scenarios/index.js'
import {secretInDraft, type Ledger, type RecordStore} from '../../store/index.js'
import {GRADER_VERSION} from '../grader/version.js'
import {WORLD_VERSION, TOOL_CATALOG_DIGEST} from '../../world/catalog.js'
import {worldEvaluator} from '../evaluator/world.js'
import {withheldEpisode} from '../episode.js'
import {invalidReason} from '../../agents/invalid.js'
import {makeRedactor, withKey, withSecrets, type Redact} from '../../redact/index.js'
import {passedSecrets} from '../../agents/command/sandbox.js'
import {secretScanner} from '../../redact/secrets.js'
import {episodeSeed} from '../prompt.js'
import {exploreSkills} from './explore.js'
import {loadDataset, type Dataset} from './dataset.js'
import {resolveSkill, type ResolvedSkill} from './skill.js'
import {contentKey, episodeDrafts, laneKey, manifestDraft} from './records.js'
import {summarize, publicAggregate, evidenceOf, type VerifiedEpisode} from './summary.js'
import {admitOf, planEpisodes, type Admit, type PlannedEpisode} from './plan.js'
import {holdoutLooks, rotate, slotsOf, type Slot} from './slots.js'

export {slotsOf, type Slot}
import {RunEvents} from './events.js'
import {assertSomeRan, retryInfrastructure} from './attempts.js'
import type {RunOptions, RunProgress, RunResult} from './run.js'
import {manifestMemory, skillsWithRecall} from './memory.js'
import type {SkillText} from '../../agents/types.js'

export const EXP_VERSION = '0.1.0'

interface Done {
  slot: string
  drafts: RecordDraft[]
  /** the same episode under the lane's own key, then under a key salted by its content */
  rekeys: (() => RecordDraft[])[]
  final?: RecordDraft[]
}

/**
 * An open run: its manifest is recorded, its agent loaded; episodes are made (or reused)
 * place by place with `ensure`, and an evaluation of any set of places is recorded with
 * `record`. `runEvaluation` is open + ensure(all) + record(all); a sequential paired
 * evaluation ensures one pass at a time; a shard ensures its own slice and records once every
 * place of the run is present. Episode ids depend on (manifest, scenario, repetition) only,
 * so however a run is cut up, the same episodes are the same records.
 */
export class RunSession {
  readonly slots: Slot[]
  private readonly done = new Map<string, VerifiedEpisode>()
  private readonly reusable = new Map<string, VerifiedEpisode>()
  private readonly pending = new Map<string, PlannedEpisode>()
  private readonly started = new Set<string>()
  private ev?: RunEvents
  recorded = 0
  resumed = 0
  retried = 0
  readonly progress: RunProgress
  /** what the agent reads: the skill, and the recalled knowledge when the memory mode recalls */
  private skillTexts: SkillText[] = []
  /** the store's secret check, asked of every episode's records before they are appended */
  private readonly scan = secretScanner()

  private constructor(
    private readonly store: RecordStore,
    private readonly o: RunOptions,
    readonly manifest: string,
    readonly dataset: Dataset,
    readonly skill: SkillRef,
    readonly agentRef: AgentRef,
    private readonly resolved: ResolvedSkill,
    private readonly agent: Agent,
    private readonly redact: Redact,
    private readonly now: () => Date,
  ) {
    this.slots = slotsOf(dataset.scenarios, o.repeat ?? 1)
    this.progress = {total: this.slots.length, done: 0, passed: 0, invalid: 0, resumed: 0}
  }

  static async open(store: RecordStore, o: RunOptions): Promise<RunSession> {
    const now = o.now ?? (() => new Date())
    if (o.explore && o.explore.rate > 0 && o.split !== 'train') throw new ExpError('E_USAGE', `exploration is for training runs only; this run is on the ${o.split} split`, {hint: 'validation, held-out and gate runs read the skill as it is: drop --explore', data: {flag: '--explore', split: o.split}})
    // the spec is recorded in the manifest every clone gets: a credential in it is a usage error
    // with the way on, not the store's "take it out of the input" once the run has started
    const inSpec = secretScanner()(o.agent)
    if (inSpec) throw new UsageError(`the agent spec (--agent) holds ${inSpec}: the spec is recorded in the run's manifest, which every clone that syncs gets; nothing was run`, 'hand the agent its secrets in the environment, named with --env (command:--env NAME program …), never on its command line')
    const key = o.holdoutKey ?? (o.split === 'holdout' && o.repo ? await findHoldoutKey({env: process.env, defaultFile: defaultKeyFile(o.repo.commonDir)}) : undefined)
    // the key is masked in what every run records, whatever its split: an agent that reads it
    // (by absolute path where no namespace can be made, or through a descriptor) must not carry
    // it into a public trace (masked only when EXP_HOLDOUT_KEY named it, before)
    const mask = key ?? (o.repo ? await findHoldoutKey({env: process.env, defaultFile: defaultKeyFile(o.repo.commonDir)}).catch(() => undefined) : undefined)
    const dataset = await loadDataset(o.scenariosDir, o.split, {strict: o.strict, key})
    const skill = await resolveSkill(o.skill, {cwd: o.cwd, skillsDir: o.skillsDir, repo: o.repo, workspace: o.workspace})
    const memory = typeof o.memory === 'function' ? await o.memory(skill) : o.memory
    const agent = await loadAgent(o.agent, o.agentOptions)
    try {
      const agentRef: AgentRef = {name: agent.name, ...(agent.model ? {model: agent.model} : {}), ...(agent.params ? {params: agent.params} : {})}
      const skillRef: SkillRef = {name: skill.name, blob: skill.blob, path: skill.source, ...(skill.commit ? {commit: skill.commit} : {})}
      const held = o.split === 'holdout'
      const manifestBody: ManifestBody = {
        purpose: o.purpose ?? 'run',
        split: o.split,
        // held-out scenario ids stay private: the tree id (with the sealed file's blob) pins the data
        dataset: {tree: dataset.tree, scenarios: held ? [] : dataset.scenarios.map(s => s.id), path: 'scenarios', ...(dataset.sealed ? {sealed: {path: dataset.sealed.path, blob: dataset.sealed.blob}} : {})},
        // the skill by its content: the same SKILL.md read from another commit (a merge that
        // promoted it, a rebase) is the same experiment, and its episodes are reused
        skill: {name: skillRef.name, blob: skillRef.blob},
        environment: {world: WORLD_VERSION, grader: GRADER_VERSION, tools: TOOL_CATALOG_DIGEST, tool_version: EXP_VERSION},
        agent: agentRef,
        evaluator: worldEvaluator.identity,
        seed: o.seed ?? 42,
        repeat: o.repeat ?? 1,
        // the manifest pins what ran (skill, data, agent, seed, limits), not why: the same skill on the
        // same split is the same experiment, whether it is a baseline, a candidate or a plain run, so
        // its episodes (and its held-out look) are reused
        ...(o.maxSteps ? {limits: {max_steps: o.maxSteps}} : {}),
        ...(o.iteration !== undefined ? {iteration: o.iteration} : {}),
        // what the agent recalled is part of what ran: another recall is another experiment
        ...manifestMemory(memory),
        ...(o.namespace ? {namespace: o.namespace} : {}),
        ...(o.explore && o.explore.rate > 0 ? {explore: {rate: o.explore.rate}} : {}),
      }
      const manifest = (await store.append(manifestDraft(manifestBody), {lane: o.lane, now})).id
      const s = new RunSession(store, o, manifest, dataset, skillRef, agentRef, skill, agent, withKey(withSecrets(o.redact ?? makeRedactor({env: process.env}), passedSecrets(o.agent)), mask?.key), now)
      s.skillTexts = skillsWithRecall(skill, memory)
      await s.plan()
      return s
    } catch (e) {
      await agent.close?.()
      throw e
    }
  }

  private get evaluators(): string[] {
    return [worldEvaluator.identity.id]
  }

  private get held(): boolean {
    return this.o.split === 'holdout'
  }

  /** What is recorded already and stands (reused), and what must still run. */
  private async plan(): Promise<void> {
    const ledger = await this.store.ledger()
    const reuse = await this.admit(ledger)
    const plan = retryInfrastructure(ledger, planEpisodes(ledger, {manifest: this.manifest, scenarios: this.dataset.scenarios, repeat: this.o.repeat ?? 1, lane: this.o.lane, reuse, evaluators: this.evaluators}), {manifest: this.manifest, lane: this.o.lane, scenarios: this.dataset.scenarios, evaluators: this.evaluators, retry: this.o.retryInvalid ?? true, reuse})
    for (const r of plan.reused) this.reusable.set(r.slot, r)
    for (const p of plan.pending) this.pending.set(p.slot, p)
    this.retried = plan.retried
    if (this.o.events?.enabled) this.ev = new RunEvents(this.o.events, {run: this.manifest, iteration: this.o.iteration ?? this.o.eventIteration, snapshot: this.o.snapshot})
    this.ev?.started({split: this.o.split, episodes: this.slots.length, resumed: this.reusable.size, privateScenarios: this.held ? this.dataset.scenarios.map(s => s.id) : undefined})
  }

  /** What this run may reuse of this ledger (RunOptions.reuse, resolved). */
  private admit(ledger: Ledger): Promise<Admit> {
    return admitOf(this.o.reuse ?? 'verified', ledger, {manifest: this.manifest, lane: this.o.lane})
  }

  /** Look again for episodes other lanes recorded since the run opened (another shard's), and take those that stand. */
  async refresh(): Promise<void> {
    if (this.o.reuse === 'none') return
    const open = this.slots.filter(s => !this.done.has(s.key) && !this.reusable.has(s.key))
    if (!open.length) return
    const ledger = await this.store.ledger()
    const reuse = await this.admit(ledger)
    for (const r of planEpisodes(ledger, {manifest: this.manifest, scenarios: this.dataset.scenarios, repeat: this.o.repeat ?? 1, lane: this.o.lane, reuse, evaluators: this.evaluators, slots: open}).reused) {
      this.reusable.set(r.slot, r)
      this.pending.delete(r.slot)
    }
  }

  private count(v: VerificationBody, resumed = false): void {
    this.progress.done++
    if (v.valid && v.passed) this.progress.passed++
    if (!v.valid) this.progress.invalid++
    if (resumed) this.progress.resumed++
  }

  /**
   * Make sure these places have an episode: reuse what stands, run the rest — except places
   * `run` says not to (another shard's): those are returned as missing.
   */
  async ensure(slots: readonly Slot[], o: {run?: (s: Slot) => boolean} = {}): Promise<{missing: Slot[]}> {
    const todo: PlannedEpisode[] = []
    const missing: Slot[] = []
    for (const s of slots) {
      if (this.done.has(s.key)) continue
      const r = this.reusable.get(s.key)
      if (r) {
        this.done.set(s.key, r)
        this.resumed++
        this.count(r.body, true)
        continue
      }
      const p = this.pending.get(s.key)
      if (p && (o.run?.(s) ?? true)) todo.push(p)
      else missing.push(s)
    }
    this.o.onProgress?.({...this.progress})
    if (todo.length) await this.runAll(todo)
    return {missing: missing.filter(s => !this.done.has(s.key))}
  }

  private async runAll(planned: readonly PlannedEpisode[]): Promise<void> {
    const o = this.o
    const seed = o.seed ?? 42
    // each lane starts at its own place in the plan: lanes running the same experiment at
    // once meet instead of racing through the same episodes (the records do not depend on order)
    const pending = rotate(planned, o.lane)
    let buffer: Done[] = []
    let lastFlush = performance.now()
    const flush = async () => {
      lastFlush = performance.now()
      if (!buffer.length) return
      const batch = buffer
      buffer = []
      // an id already taken by other bytes (a forged or foreign record) moves the episode to this lane's own key
      const ledger = await this.store.ledger()
      const drafts = batch.flatMap(b => {
        // and when that one is taken too (this lane ran the same experiment from another commit,
        // or its agent answered otherwise), to a key salted by the episode's own content
        let d = b.drafts
        for (const next of b.rekeys) {
          if (!d.some(x => isTaken(ledger, x))) break
          d = next()
        }
        b.final = d
        return d
      })
      const results = await this.store.appendBatch(drafts, {lane: o.lane, private: this.held, now: this.now})
      for (const b of batch) this.done.set(b.slot, verifiedOf(b.final!))
      const fresh = drafts.filter((_, i) => results[i]!.status === 'created' || results[i]!.lane === o.lane)
      this.recorded += fresh.filter(d => d.kind === 'trace').length
      this.ev?.episodes(fresh)
      // another lane is recording this very experiment: take what stands of it, skip it here
      if (o.reuse === undefined || o.reuse === 'verified' || (typeof o.reuse === 'object' && 'vouch' in o.reuse)) {
        if (results.some(r => r.status === 'exists' && r.lane !== o.lane)) await this.takeOthers(pending)
      }
    }
    let next = 0
    // once one worker fails (an append the store refused), the run is stopping: no worker starts
    // another episode, the episodes under way are cancelled, nothing more is recorded, and the
    // error is thrown only when every worker stopped. Before, the other workers went on starting
    // episodes after the caller had closed the agent (a command agent's copied files removed):
    // each died in its sandbox's setup, and was recorded as the agent's crash
    let failure: {error: unknown} | undefined
    const stopping = new AbortController()
    const worker = async () => {
      while (!failure && next < pending.length) {
        const p = pending[next++]!
        if (this.started.has(p.slot) || this.done.has(p.slot)) continue
        this.started.add(p.slot)
        const t0 = performance.now()
        const explored = exploreSkills(this.skillTexts, o.explore, [seed, p.scenario.id, p.rep])
        let r = await worldEvaluator.judge({scenario: p.scenario, agent: this.agent, skills: explored.skills, seed: episodeSeed(seed, p.rep), repetition: p.rep, redact: this.redact, signal: stopping.signal, ...(o.maxSteps ? {maxSteps: o.maxSteps} : {})})
        if (failure) break
        const wallMs = performance.now() - t0
        const draftsFor = (key: string) => {
          const d = episodeDrafts(r, {manifest: this.manifest, agent: this.agentRef, skill: this.skill, wallMs, key, sealTask: this.held, ...(explored.dropped ? {dropped: explored.dropped} : {})})
          return [d.trace, d.verification] as [RecordDraft<'trace'>, RecordDraft<'verification'>]
        }
        let drafts = draftsFor(p.key)
        // what the store would refuse for a secret the redactor left stops no run: the episode
        // is recorded invalid, without what the agent said or did (docs/trust.md, "an agent")
        const leak = this.leak(drafts)
        if (leak) {
          r = withheldEpisode(r, p.scenario, leak)
          drafts = draftsFor(p.key)
        }
        const own = laneKey(p.baseKey, o.lane)
        // the lane key's drafts, built at most once: the third key is salted by their trace
        let ownDrafts: ReturnType<typeof draftsFor> | undefined
        const underOwn = () => (ownDrafts ??= draftsFor(own))
        buffer.push({slot: p.slot, drafts, rekeys: [underOwn, () => draftsFor(contentKey(own, underOwn()[0]))]})
        this.count(r.verdict as VerificationBody)
        o.onProgress?.({...this.progress})
        // a full batch, or a second's worth: slow agents still show their work to other lanes
        if (buffer.length >= (o.batch ?? 64) || performance.now() - lastFlush >= 1000) await flush()
      }
    }
    const guarded = () =>
      worker().catch((error: unknown) => {
        failure ??= {error}
        stopping.abort()
      })
    await Promise.all(Array.from({length: Math.max(1, Math.min(o.concurrency ?? 4, pending.length || 1))}, guarded))
    if (failure) throw failure.error
    await flush()
  }

  /**
   * Why an episode's records cannot be written as they are, when the store's secret check
   * (src/store/secrets.ts, the same function) would refuse one of them: the invalid reason it
   * is recorded with instead, naming the field and the kind of secret, never the value.
   * Undefined when they can be written.
   */
  private leak(drafts: readonly RecordDraft[]): string | undefined {
    for (const d of drafts) {
      const f = secretInDraft(d, this.scan)
      // (the field by its top-level name only: a path can run through keys the agent chose)
      if (f) return invalidReason('secret', `the episode's ${d.kind} held ${f.what} in ${/^body\.([A-Za-z_]+)/.exec(f.field)?.[1] ?? f.field.replace(/[[.].*$/, '')}, which no record may hold and the redactor did not mask; what the agent said and did is not recorded`)
    }
    return undefined
  }

  /** Episodes of these places another lane recorded meanwhile, and that stand: taken, not run here. */
  private async takeOthers(wanted: readonly PlannedEpisode[]): Promise<void> {
    const ledger = await this.store.ledger()
    const more = planEpisodes(ledger, {manifest: this.manifest, scenarios: this.dataset.scenarios, repeat: this.o.repeat ?? 1, lane: this.o.lane, reuse: await this.admit(ledger), evaluators: this.evaluators, slots: wanted.filter(p => !this.started.has(p.slot))})
    for (const r of more.reused) {
      if (this.started.has(r.slot)) continue
      this.started.add(r.slot)
      this.done.set(r.slot, r)
      this.count(r.body)
    }
    this.o.onProgress?.({...this.progress})
  }

  /** The episodes of these places (those that have one), sorted by verification id. */
  verified(slots: readonly Slot[] = this.slots): VerifiedEpisode[] {
    return slots.flatMap(s => (this.done.has(s.key) ? [this.done.get(s.key)!] : [])).sort((a, b) => (a.id < b.id ? -1 : 1))
  }

  /** The evaluation body of these episodes, as `record` would write it (before any decoration). */
  summary(verified: readonly VerifiedEpisode[], repeat: number): EvaluationBody {
    const o = this.o
    const base = {manifest: this.manifest, split: o.split, skill: this.skill, agent: this.agentRef, ...(o.role ? {role: o.role} : {}), ...(o.proposal ? {proposal: o.proposal} : {})}
    return {...summarize(verified, base, repeat), evaluator: worldEvaluator.identity, evidence: evidenceOf(verified)}
  }

  /**
   * Record the evaluation of these episodes (held-out: the full one on the private lane, the
   * aggregate on the public one). `repeat` is how many passes they cover.
   */
  async record(verified: VerifiedEpisode[], o: {repeat: number; decorate?: RunOptions['decorate']}): Promise<RunResult> {
    assertSomeRan(verified, this.agentRef.name)
    const summary = this.summary(verified, o.repeat)
    const full = o.decorate ? o.decorate(summary, verified) : summary
    let evaluation: string
    let privateEvaluation: string | undefined
    const now = this.now
    if (this.held) {
      const looks = holdoutLooks(await this.store.ledger(), this.manifest)
      privateEvaluation = (await this.store.append({kind: 'evaluation', body: {...full, holdout_looks: looks}, cites: [this.manifest, ...verified.map(v => v.id)]}, {lane: this.o.lane, private: true, now})).id
      const {comparison: _private, ...pub} = publicAggregate(full, this.dataset.sealed?.key)
      evaluation = (await this.store.append({kind: 'evaluation', body: {...pub, holdout_looks: looks}, cites: [this.manifest]}, {lane: this.o.lane, now})).id
    } else {
      evaluation = (await this.store.append({kind: 'evaluation', body: full, cites: [this.manifest, ...verified.map(v => v.id)]}, {lane: this.o.lane, now})).id
    }
    this.ev?.recorded([{id: evaluation}, ...(privateEvaluation ? [{id: privateEvaluation, private: true}] : [])])
    this.ev?.completed({total: full.total, passed: full.passed, invalid: full.invalid, recorded: this.recorded})
    return {
      manifest: this.manifest,
      evaluation,
      ...(privateEvaluation ? {private_evaluation: privateEvaluation} : {}),
      split: this.o.split,
      total: full.total,
      passed: full.passed,
      invalid: full.invalid,
      success_rate: full.success_rate,
      ci: full.ci as [number, number],
      resumed: this.resumed,
      retried: this.retried,
      recorded: this.recorded,
      skill: this.skill,
      agent: this.agentRef,
      body: full,
      verified,
      problems: this.dataset.problems,
    }
  }

  failed(e: unknown): void {
    this.ev?.failed(e)
  }

  async close(): Promise<void> {
    await this.agent.close?.()
  }
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

