import {hashObject} from '../records/object-id.js'
import {onLane, type Ledger, type RecordStore} from '../store/index.js'
import {AgentInvalidError, CandidateTakenError, ClaimedError, ExpError, HypothesisStateError, NotFoundError, SealedSplitError} from '../errors/index.js'
import {defaultKeyFile, findHoldoutKey, sealedPath} from '../scenarios/index.js'
import {DEFAULT_TTL_SECONDS} from '../lifecycle/index.js'
import {claimFor, foreignClaims, releaseFor, retireStale, type LaneWork} from './lanes.js'
import {LoopEvents} from './events.js'
import type {Rule} from '../knowledge/index.js'
import {runEvaluation, type RunResult} from '../evals/runner/run.js'
import {invalidReasons} from '../evals/runner/attempts.js'
import {createProposal, type CreatedProposal, type ProposalDrafter} from './proposal.js'
import {reached85, reachedLevels, saturated, SATURATED} from './evolve-steps.js'
import {evaluateProposal, loadProposal, type EvalRunOptions} from './evaluate.js'
import {loadPolicy, promoteProposal, type PromoteResult} from './promote.js'
import type {Workspace} from '../workspace/port.js'
import {finishInterruptedAdvance} from '../workspace/advance.js'
import {readPurposeAt} from './proposal.js'
import {skillPath, unknownSkill} from './files.js'
import type {IterationReport} from './dashboard.js'
import {doneNote, iterationNote, readRun, runIdentity, startNote, type RunIteration, type RunState} from './evolve-run.js'
import {replayedReport} from './evolve-replay.js'
import {DEFAULT_MEMORY_MODE, records, recalls, type MemoryMode, type RunMemory} from '../evals/runner/memory.js'
import {recallForRun} from './memory.js'

/** The mining step behind its seam: the deterministic miner by default (src/mining). */
export interface MineResult {
  evidence: string[]
  knowledge: string[]
  patterns: {
    pattern: string
    signature: string
    description?: string
    support: number
    failures: number
    rule?: Rule
  }[]
}
/** `scenariosDir`: the folder the run's scenarios were read from (its traces are replayed against them before a verdict is learned from) */
/**
 * The loop's mining step. `anchors`: the episodes this process's train runs used (verification
 * id -> the digest of the copy), their own and those reused from other lanes: they fill their
 * places before any other lane's (src/mining/runs.ts).
 */
export type MineStep = (store: RecordStore, ledger: Ledger, o: {manifest: string; lane: string; now?: () => Date; scenariosDir: string; anchors?: ReadonlyMap<string, string>}) => Promise<MineResult>

export interface EvolveOptions extends EvalRunOptions {
  skill: string
  mainRef: string
  iterations: number
  budgetEpisodes?: number
  trainRepeat: number
  evalRepeat: number
  maxRules?: number
  /** exploration of training runs (src/evals/runner/explore.ts): the probability each rule line is left out of a run; 0 or absent: none */
  exploreRate?: number
  recall: {items: number; tokens: number}
  /** the proposer's recall budget (default: `recall`); the first candidate takes every rule it offers, up to maxRules */
  propose?: {items: number; tokens: number}
  mine: MineStep
  /** an LLM drafts the words of each proposal (`--proposer openai:MODEL`); its scope stays deterministic */
  draft?: ProposalDrafter
  /** how long a claim of this lane holds without renewal (default 3600 s) */
  claimTtlSeconds?: number
  /** start a new run when the run with these options has finished (exp evolve --continue) */
  continue?: boolean
  /** memory mode (docs/compare.md): without record the train runs are not mined; with recall every run reads the recalled knowledge */
  memoryMode?: MemoryMode
  /** proposals of this run get ids and branches of their own (ProposeOptions.namespace; exp matrix) */
  namespace?: string
  onIteration?: (r: IterationReport) => void
  onStep?: (step: string) => void
}

export interface EvolveResult {
  lane: string
  iterations: IterationReport[]
  holdout_before: number
  holdout_after: number
  promoted: number
  rejected: number
  episodes: number
  /** when the main skill first reached 85% held-out success: after how many episodes */
  reached_85?: {iteration: number; episodes: number}
  /** for each held-out level (50%, 60%, ... 100%): the iteration after which main first reached it, and the episodes spent by then */
  reached: {level: number; iteration: number; episodes: number}[]
  /** episodes recorded by each iteration (in order; 0 for an iteration rebuilt from its records) */
  episodes_per_iteration: number[]
  stopped?: string
  /** which run this is (options digest and generation), how much of it an earlier start did, whether it was finished already */
  run: {id: string; generation: number; start: string; resumed: number; finished_before: boolean}
}

/** How often one iteration rebases a candidate whose base went stale before giving up. */
const MAX_REBASES = 2
/** How many hypotheses one iteration may find claimed by other lanes before giving up. */
const MAX_BLOCKED = 5

interface SkillAt {
  main: string
  blob: string
  version: number
}

/**
 * `exp evolve`: run train → mine → propose → eval → promote, N times. A run is identified by
 * its options (src/loop/evolve-run.ts): started again after a kill, it goes on from the last
 * iteration it finished, on the main that iteration left, so it ends with the same decisions,
 * SKILL.md and held-out result as a run nobody killed; started again once finished, it says
 * so (a new run needs `continue`). Every step is idempotent (records keyed by content or by
 * (manifest, scenario, repetition); branches and merge commits deterministic), so the
 * iteration that was interrupted replays what it had done for free.
 *
 * It stops early when no candidate is left (and says why), or when validation is at 100%
 * and a candidate was rejected (nothing can improve it; a reviewer can still accept a
 * not-worse change through the gate's allow_neutral). An iteration whose skill did not
 * change since the last one reuses that one's train run and mining instead of running them.
 *
 * Lanes work without a leader (docs/frontier.md): the hypothesis behind a candidate is
 * claimed before its branch is built, knowledge behind other lanes' live claims is left
 * alone, and a candidate whose base is no longer main's tip (another lane promoted) is
 * retired with the reason and rebased onto the new main, or dropped when main already
 * follows it. Episodes are content-addressed, so no lane runs an experiment twice.
 */
export async function evolve(store: RecordStore, ws: Workspace, o: EvolveOptions): Promise<EvolveResult> {
  const now = o.now ?? (() => new Date())
  const work: LaneWork = {
    store,
    lane: o.lane,
    ttlSeconds: o.claimTtlSeconds ?? DEFAULT_TTL_SECONDS,
    now,
  }
  let episodes = 0
  // the episodes this process's train runs used, pinned for the miner (MineStep)
  const anchors = new Map<string, string>()
  const count = (r: RunResult) => {
    episodes += r.recorded
    return r
  }
  const tip = async () => {
    const main = await ws.readRef(o.mainRef)
    if (!main) throw new NotFoundError('branch', o.mainRef, 'commit the skill first: `exp init --example onboarding`')
    return main
  }
  const skillAt = async (main: string): Promise<SkillAt> => {
    const text = await ws.readFile(main, skillPath(o.skill))
    if (!text) throw await unknownSkill(ws, main, o.mainRef, o.skill)
    return {main, blob: hashObject('blob', text), version: (await readPurposeAt(ws, main, o.skill)).version}
  }
  const mainSkill = async () => skillAt(await tip())
  const mode = o.memoryMode ?? DEFAULT_MEMORY_MODE
  // with a recalling mode, the runs of one step read the same recall (built on the skill on main), so comparisons stay paired
  // `settled`: only knowledge recorded before this run's latest note (its start, or the iteration
  // before), so an iteration started again after a kill recalls what it recalled the first time
  const memoryAt = async (commit: string, settled = false): Promise<RunMemory> =>
    recalls(mode) ? recallForRun(store, {mode, skill: {name: o.skill, content: (await ws.readFile(commit, skillPath(o.skill)))?.toString('utf8') ?? ''}, lane: o.lane, budget: o.recall, now: o.now, ...(settled ? {until: lastNote(await store.ledger(), o.lane, state)} : {})}) : {mode}

  // which run this is, and how far an earlier start of it got
  const identity = runIdentity({...o, agent: o.agent})
  // what every promotion of this run is decided by, and the skill it starts from: both on main
  // before anything is run or recorded (not found only at the first promotion, hundreds of episodes in)
  await loadPolicy(ws, await tip())
  await mainSkill()
  // every start measures the held-out baseline first: a sealed split without its key would stop
  // it there, after its start note was written (as compare and gain, refused before anything)
  // (the key as the runner finds it: the one given, else EXP_HOLDOUT_KEY*, else .git/exp/holdout.key)
  if (sealedPath(o.scenariosDir) && !o.holdoutKey && !(o.repo && (await findHoldoutKey({env: process.env, defaultFile: defaultKeyFile(o.repo.commonDir)})))) throw new SealedSplitError('exp evolve cannot measure held-out success: the held-out split is sealed and no key was found; nothing was run', 'set EXP_HOLDOUT_KEY or EXP_HOLDOUT_KEY_FILE, or put the key in .git/exp/holdout.key, then run the same command again')
  // a promotion updates main's work tree as git merge does: uncommitted changes there would stop
  // the first one (promote.ts), so they are refused here, before anything runs
  // (a promotion of an earlier start killed after main moved, before the work tree followed: finished first)
  await finishInterruptedAdvance(ws, o.mainRef)
  const mainDir = await ws.workTreeWith(o.mainRef)
  if (mainDir) {
    const dirty = await ws.exclusive(() => ws.dirtyFiles(mainDir))
    if (dirty.length) throw new ExpError('E_DIRTY_TREE', `${o.mainRef.replace('refs/heads/', '')} is checked out and has uncommitted changes: ${dirty.slice(0, 5).join(', ')}`, {hint: 'commit or stash them, then run exp evolve again (its promotions update the work tree like git merge)'})
  }
  let state = readRun(await store.ledger(), identity, o.lane, {next: o.continue})
  const resumed = state.iterations.length
  const finishedBefore = !!state.finished
  if (state.start === undefined) {
    const first = await tip()
    await store.append(startNote(await store.ledger(), state, {skill: o.skill, lane: o.lane, iterations: o.iterations, start: first}), {lane: o.lane, now: o.now})
    state = {...state, start: first}
  }
  const start = state.start!
  // episodes an earlier start recorded after its latest note (it was killed mid-iteration):
  // reused by this start, so never counted as recorded by it, but spent all the same (a
  // compare killed once ran past its episode budget, with another answer than one never killed)
  const ledgerAtStart = await store.ledger()
  const mark = lastNote(ledgerAtStart, o.lane, state)
  const carried = mark === undefined ? 0 : ledgerAtStart.select({kinds: ['trace']}).filter(e => e.lane === o.lane && e.lamport > mark).length
  const events = o.events?.enabled && !finishedBefore ? new LoopEvents(o.events, `evolve/${o.lane}/${start.slice(0, 12)}`) : undefined
  const holdoutOf = async (commit: string) =>
    count(
      await runEvaluation(store, {
        ...o,
        workspace: ws,
        split: 'holdout',
        repeat: o.evalRepeat,
        skill: `${commit}:${skillPath(o.skill)}`,
        role: 'baseline',
        memory: await memoryAt(commit, commit === start),
      }),
    ).success_rate
  try {
    o.onStep?.('held-out baseline')
    const holdoutBefore = await holdoutOf(start)
    const reports: IterationReport[] = []
    let promoted = 0
    let rejected = 0
    let stopped: string | undefined = state.finished?.stopped
    // the iterations an earlier start finished: rebuilt from their records, never run again
    let expected = start
    for (const it of state.iterations) {
      const ledger = await store.ledger()
      const at = await skillAt(expected)
      const r = replayedReport(ledger, it, {skill: o.skill, base: {commit: at.main, blob: at.blob, version: at.version}})
      if (r.decision?.verdict === 'accept') promoted++
      else if (r.decision) rejected++
      reports.push(r)
      o.onIteration?.(r)
      expected = it.main
      episodes = it.episodes
    }
    episodes += carried
    let last: {blob: string; recall?: string; train: RunResult; mined: MineResult} | undefined
    const record = async (it: RunIteration) => {
      await store.append(iterationNote(await store.ledger(), o.lane, state, it, o.iterations), {lane: o.lane, now: o.now})
      state = {...state, iterations: [...state.iterations, it]}
    }
    for (let i = state.iterations.length + 1; !finishedBefore && !stopped && i <= o.iterations; i++) {
      if (o.budgetEpisodes !== undefined && episodes >= o.budgetEpisodes) {
        stopped = `episode budget reached (${episodes} >= ${o.budgetEpisodes})`
        break
      }
      // the skill just promoted passes every validation episode: no candidate can improve on
      // it, so nothing is trained or evaluated to find that out
      const prev = reports.at(-1)
      if (prev?.decision?.verdict === 'accept' && prev.validation && prev.validation.candidate >= 1) {
        stopped = SATURATED
        break
      }
      const s = await skillAt(expected)
      // killed after this iteration decided but before its note: the decision is its outcome
      const ledger0 = await store.ledger()
      const done = decidedSince(ledger0, o.lane, expected, state)
      if (done) {
        const it = {iteration: i, main: done.accept ? done.merge! : expected, decision: done.id, episodes}
        const r = replayedReport(ledger0, it, {skill: o.skill, base: {commit: s.main, blob: s.blob, version: s.version}})
        if (done.accept) promoted++
        else rejected++
        reports.push(r)
        o.onIteration?.(r)
        await record(it)
        expected = it.main
        stopped = saturated(r)
        continue
      }
      events?.scheduled(i, {
        lane: o.lane,
        skill: o.skill,
        version: s.version,
        commit: s.main,
      })
      // the iteration tags events only: a manifest pins what ran, so iterations share episodes
      let runOpts = {...o, eventIteration: i, memory: await memoryAt(s.main, true)}
      const spent = {train: 0, validation: 0, holdout: 0}
      const before = episodes
      // Train (and mine) each new SKILL.md once, and a skill whose knowledge ran out once more
      // with fresh seeds. Which seed a training uses comes from the ledger (the lane's train runs
      // so far), so a run started again after a kill trains exactly where a run nobody killed did:
      // the first training of a skill reuses the run recorded for it, if any.
      const trainAndMine = async (again = false) => {
        // under a recalling mode the agent also reads the recall: a new recall is a new train run (on the same seed)
        if (!again && last?.blob === s.blob && last.recall === runOpts.memory.context?.digest) return {t: last, fresh: false}
        const ledger = await store.ledger()
        const prior = trainSeeds(ledger, o.lane, o.skill, s.blob)
        const seed = !again && prior.length ? prior[prior.length - 1]! : (o.seed ?? 42) + trainSeeds(ledger, o.lane, o.skill).length
        o.onStep?.(`iteration ${i}: train`)
        const train = count(
          await runEvaluation(store, {
            ...runOpts,
            workspace: ws,
            split: 'train',
            repeat: o.trainRepeat,
            ...(o.exploreRate ? {explore: {rate: o.exploreRate}} : {}),
            // fresh runs for each new skill (the miner learns from all of them, docs/mining.md);
            // validation and held-out keep their seeds, so that comparisons stay paired
            seed,
            skill: `${s.main}:${skillPath(o.skill)}`,
          }),
        )
        spent.train += train.recorded
        // an agent that ended no training episode with an answer (a crash in each) leaves nothing
        // to mine: said and stopped, as loudly as a run where no episode could run, instead of
        // an iteration that found no candidate and an exit 0
        if (train.total && train.invalid === train.total) {
          const all = invalidReasons(train.verified)
          throw new AgentInvalidError(train.agent.name, 'training', all.count, all.reasons)
        }
        o.onStep?.(`iteration ${i}: mine`)
        // a mode that does not record keeps the runs out of experience: nothing to mine
        for (const v of train.verified) anchors.set(v.id, v.digest)
        const mined = records(mode) ? await o.mine(store, await store.ledger(), {manifest: train.manifest, lane: o.lane, now: o.now, scenariosDir: o.scenariosDir, anchors}) : {evidence: [], knowledge: [], patterns: []}
        last = {blob: s.blob, ...(runOpts.memory.context ? {recall: runOpts.memory.context.digest} : {}), train, mined}
        return {t: last, fresh: true}
      }
      /** a second training of the same skill, once: what the knowledge of the first did not cover */
      const retrainable = async () => trainSeeds(await store.ledger(), o.lane, o.skill, s.blob).length < 2
      const report: IterationReport = {iteration: i, skill: {name: o.skill, version: s.version, blob: s.blob, commit: s.main}, training: {manifest: '', evaluation: '', passed: 0, total: 0, rate: 0}, patterns: [], knowledge: [], episodes: 0}
      const trained = (t: NonNullable<typeof last>, fresh: boolean) => {
        report.training = {manifest: t.train.manifest, evaluation: t.train.evaluation, passed: t.train.passed, total: t.train.total, rate: t.train.success_rate, ...(fresh ? {} : {reused: true})}
        report.patterns = fresh ? t.mined.patterns : []
        report.knowledge = fresh ? t.mined.knowledge : []
      }
      const finish = async (it: Omit<RunIteration, 'iteration' | 'episodes'>) => {
        report.episodes = episodes
        report.new_episodes = {...spent, total: episodes - before}
        reports.push(report)
        o.onIteration?.(report)
        await record({iteration: i, episodes, ...it})
        expected = it.main
      }
      o.onStep?.(`iteration ${i}: propose`)
      // every new SKILL.md is trained (and mined) once: an agent that follows the new rules reaches
      // states the old one never did, and their failures are the next knowledge (docs/mining.md,
      // "In the loop"); a skill trained before reuses its episodes (none new)
      const {t, fresh} = await trainAndMine()
      trained(t, fresh)
      // validation and held-out read what the knowledge is after this iteration's mining
      if (recalls(mode)) runOpts = {...runOpts, memory: await memoryAt(s.main)}
      let created = await proposeClaimed(store, ws, o, work, report, s.main)
      if (!created && (await retrainable())) {
        const again = await trainAndMine(true)
        trained(again.t, again.fresh)
        delete report.note
        created = await proposeClaimed(store, ws, o, work, report, s.main)
      }
      events?.recall(
        i,
        created
          ? {
              recall: created.recall,
              hypothesis: created.hypothesis,
              knowledge: created.patch.knowledge,
            }
          : {knowledge: [], reason: report.note},
      )
      if (!created) {
        report.note ??= records(mode) ? 'no knowledge left that the skill does not already follow or that was not rejected' : `memory mode ${mode}: this run's train runs are not mined, and no knowledge recorded before is left to propose`
        stopped = `no candidate left: ${report.note}`
        await finish({main: s.main, note: report.note})
        break
      }
      let dec: PromoteResult | undefined
      for (let rebases = 0; created;) {
        report.proposal = {
          id: created.proposal,
          version: created.version,
          branch: created.branch,
          added: created.patch.rendered.size.added,
          removed: created.patch.rendered.size.removed,
          sections: created.patch.rendered.sections,
        }
        o.onStep?.(`iteration ${i}: eval`)
        let ledger = await store.ledger()
        const proposal = loadProposal(ledger, created.proposal)
        const policy = (await loadPolicy(ws, created.base)).policy
        const ev = await evaluateProposal(store, ws, proposal, 'validation', {
          ...runOpts,
          repeat: o.evalRepeat,
          snapshot: created.recall,
          policy,
        })
        count(ev.baseline)
        count(ev.candidate)
        spent.validation += ev.baseline.recorded + ev.candidate.recorded
        report.validation = {
          baseline: ev.baseline.success_rate,
          candidate: ev.candidate.success_rate,
          wins: ev.comparison.wins,
          losses: ev.comparison.losses,
          mcnemar_p: ev.comparison.mcnemar_p,
          evaluation: ev.candidate.evaluation,
          pairs: ev.comparison.wins + ev.comparison.losses + ev.comparison.ties,
          ...(ev.sequential ? {passes: ev.sequential.look, looks: ev.sequential.looks} : {}),
        }
        report.regressions = ev.comparison.regressions.length
        o.onStep?.(`iteration ${i}: promote`)
        // renew the claim: the evaluation may have taken a while (if it lapsed and another lane
        // holds it now, the episodes are shared anyway: the decision still goes ahead here)
        await claimFor(work, created.hypothesis).catch(e => {
          if (!(e instanceof ExpError && (e.code === 'E_CLAIMED' || e.code === 'E_STATE'))) throw e
        })
        ledger = await store.ledger()
        const head = await tip()
        // main moved under the candidate, and not by this run's own merge of it (a kill between merge and decision)
        let moved = head !== created.base && !decided(ledger, created.proposal, o.lane) && !(await mergedBy(ws, head, created))
        if (!moved) {
          try {
            dec = await promoteProposal(store, ws, ledger, proposal, {
              ...runOpts,
              repeat: o.evalRepeat,
              snapshot: created.recall,
            })
          } catch (e) {
            // another lane merged into main between the check and the merge
            if (!(e instanceof ExpError && e.code === 'E_CONFLICT')) throw e
            moved = true
          }
        }
        if (moved) {
          const now = await mainSkill()
          const next: CreatedProposal | undefined = rebases < MAX_REBASES ? await rebase(store, ws, o, work, created, now.main) : undefined
          const why = `main moved from ${created.base.slice(0, 12)} to ${now.main.slice(0, 12)} while ${o.lane} evaluated it; ${next ? `rebased as ${next.proposal}` : 'main already follows it, or nothing of it is left to try'}`
          // the same statement on the new base (main moved, the skill did not) stays claimed and goes on
          if (next?.hypothesis !== created.hypothesis) await retireStale(work, created.hypothesis, why)
          ;(report.rebased ??= []).push({
            proposal: created.proposal,
            hypothesis: created.hypothesis,
            reason: why,
          })
          delete report.validation
          delete report.regressions
          if (!next) {
            delete report.proposal
            report.note = why
          }
          // the rebased candidate is judged against the new main
          if (next) report.skill = {name: o.skill, version: now.version, blob: now.blob, commit: now.main}
          created = next
          rebases++
          dec = undefined
          if (!next) await finish({main: now.main, note: why})
          continue
        }
        if (dec!.holdout) {
          // the two held-out runs of the promotion: count what they recorded
          const held = countNew(await store.ledger(), ledger, o.lane)
          episodes += held
          spent.holdout += held
          report.holdout = {
            baseline: dec!.holdout.baseline,
            candidate: dec!.holdout.candidate,
          }
        }
        report.decision = {
          id: dec!.decision,
          verdict: dec!.verdict,
          reasons: dec!.reasons,
          merge: dec!.merge,
          ...(dec!.decided_by ? {decided_by: `${dec!.decided_by.name}: ${dec!.decided_by.detail}`} : {}),
        }
        events?.decided(i, {
          decision: dec!.decision,
          verdict: dec!.verdict,
          proposal: created.proposal,
          snapshot: created.recall,
          knowledge: created.patch.knowledge,
          reasons: dec!.reasons,
          merge: dec!.merge,
        })
        await releaseFor(work, created.hypothesis, `decided: ${dec!.verdict} (${dec!.decision})`)
        if (dec!.verdict === 'accept') promoted++
        else rejected++
        await finish({main: dec!.verdict === 'accept' ? dec!.merge! : created.base, decision: dec!.decision})
        stopped = saturated(report)
        break
      }
    }
    o.onStep?.('held-out after')
    const after = finishedBefore ? expected : await tip()
    const holdoutAfter = await holdoutOf(after)
    const reached = reached85(reports, holdoutBefore)
    const levels = reachedLevels(reports, holdoutBefore)
    if (!finishedBefore) await store.append(doneNote(await store.ledger(), o.lane, state, {iterations: reports.length, promoted, rejected, stopped}), {lane: o.lane, now: o.now})
    const result: EvolveResult = {
      lane: o.lane,
      iterations: reports,
      holdout_before: holdoutBefore,
      holdout_after: holdoutAfter,
      promoted,
      rejected,
      episodes,
      ...(reached ? {reached_85: reached} : {}),
      reached: levels,
      episodes_per_iteration: reports.map(r => r.new_episodes?.total ?? 0),
      ...(stopped ? {stopped} : {}),
      run: {id: identity, generation: state.generation, start, resumed, finished_before: finishedBefore},
    }
    events?.completed({...result, iterations: reports.length})
    return result
  } catch (e) {
    events?.failed(e)
    throw e
  }
}

/** A decision this lane made since the run's last note on a proposal based on `base`: the outcome of an iteration killed before its note. */
function decidedSince(ledger: Ledger, lane: string, base: string, s: RunState): {id: string; accept: boolean; merge?: string} | undefined {
  const marks = ledger.select({kinds: ['note']}).filter(e => e.lane === lane && ledger.load<'note'>(e).body.text.startsWith(`evolve run ${s.identity}/${s.generation}`))
  const since = marks.at(-1)?.lamport ?? 0
  for (const e of ledger.select({kinds: ['decision']})) {
    if (e.lane !== lane || e.lamport <= since) continue
    const d = ledger.load<'decision'>(e).body
    const p = ledger.get(d.proposal)
    if (p && ledger.load<'proposal'>(p).body.base.commit === base) return {id: e.id, accept: d.verdict === 'accept', ...(d.merge ? {merge: d.merge.commit} : {})}
  }
  return undefined
}

/** The ledger position of this run's latest progress note (its start note, then one per finished iteration). */
function lastNote(ledger: Ledger, lane: string, s: RunState): number | undefined {
  return ledger.select({kinds: ['note'], lanes: [lane]}).filter(e => ledger.load<'note'>(e).body.text.startsWith(`evolve run ${s.identity}/${s.generation}`)).at(-1)?.lamport
}

/** `head` is this candidate's own promotion merge (made before a kill, its decision not yet recorded). */
async function mergedBy(ws: Workspace, head: string, c: CreatedProposal): Promise<boolean> {
  const commit = await ws.readCommit(head)
  return commit.parents[0] === c.base && commit.message.includes(`Exp-Promotes: ${c.proposal}`)
}

/**
 * This lane decided this proposal already (a resumed run). Only its own decision of it: any
 * lane can write a record citing the proposal, and one did stop the rebase when main moved.
 */
function decided(ledger: Ledger, proposal: string, lane: string): boolean {
  return ledger.select({kinds: ['decision'], cites: proposal}).some(d => onLane(ledger, d, lane) && ledger.load<'decision'>(d).body.proposal === proposal)
}

/**
 * Propose and claim. Knowledge behind other lanes' live claims is left out; when another
 * lane wins the claim of the very hypothesis built here, its knowledge joins that set and
 * the proposer tries again.
 */
async function proposeClaimed(store: RecordStore, ws: Workspace, o: EvolveOptions, work: LaneWork, report: IterationReport, base: string): Promise<CreatedProposal | undefined> {
  const avoid = new Set<string>()
  for (let tries = 0; tries < MAX_BLOCKED; tries++) {
    const ledger = await store.ledger()
    for (const c of foreignClaims(ledger, o.lane, work.now())) for (const k of c.knowledge) avoid.add(k)
    try {
      return await proposeAs(store, ws, ledger, o, work, {avoid, base})
    } catch (e) {
      // another lane decided the same hypothesis first (built on the same base before main
      // moved): it is promoted or retired and cannot be claimed; its knowledge is done with here
      if (e instanceof HypothesisStateError && e.data?.action === 'claim') {
        const after = await store.ledger()
        const h = String(e.data.hypothesis)
        for (const k of (after.get(h) ? after.load<'hypothesis'>(h).body.knowledge : undefined) ?? []) avoid.add(k)
        ;(report.blocked ??= []).push({hypothesis: h, holder: 'nobody', why: `it is ${String(e.data.status)} already`})
        continue
      }
      if (!(e instanceof ClaimedError || e instanceof CandidateTakenError)) throw e
      // another lane holds the hypothesis, or built the same candidate from its own: its
      // knowledge (and so its rules) is theirs for now, and this lane's claim goes back
      const h = e instanceof CandidateTakenError ? String(e.data.mine) : String(e.data.hypothesis)
      if (e instanceof CandidateTakenError) await releaseFor(work, h, `the same candidate was built by ${String(e.data.holder)}`)
      const holder = String(e.data.holder)
      ;(report.blocked ??= []).push({
        hypothesis: e instanceof CandidateTakenError && e.data.hypothesis ? String(e.data.hypothesis) : h,
        holder,
        // (this very lane built the same patch on the same base before: its evaluation stands)
        ...(e instanceof CandidateTakenError ? {why: holder === o.lane ? 'this lane proposed the same patch on this base before' : `lane ${holder} proposed the same patch on this base`} : {}),
      })
      const after = await store.ledger()
      const body = after.get(h) ? after.load<'hypothesis'>(h).body : undefined
      for (const k of body?.knowledge ?? []) avoid.add(k)
    }
  }
  report.note = `every candidate is taken (${report.blocked!.map(b => `${b.hypothesis}: ${b.why ?? `claimed by ${b.holder}`}`).join(', ')})`
  return undefined
}

/** createProposal for this lane, claiming the hypothesis before the candidate is built. */
function proposeAs(store: RecordStore, ws: Workspace, ledger: Ledger, o: EvolveOptions, work: LaneWork, pick: {avoid?: ReadonlySet<string>; only?: ReadonlySet<string>; base?: string}): Promise<CreatedProposal | undefined> {
  return createProposal(store, ws, ledger, {skill: o.skill, lane: o.lane, mainRef: o.mainRef, recall: o.propose ?? o.recall, maxRules: o.maxRules, now: o.now, ...(o.namespace ? {namespace: o.namespace} : {}), ...pick, claim: h => claimFor(work, h), ...(o.draft ? {draft: o.draft} : {})})
}

/** The same knowledge, proposed again on main's new tip (the proposer drops rules main already has). */
async function rebase(store: RecordStore, ws: Workspace, o: EvolveOptions, work: LaneWork, stale: CreatedProposal, tip: string): Promise<CreatedProposal | undefined> {
  if (tip === stale.base) return undefined
  try {
    return await proposeAs(store, ws, await store.ledger(), o, work, {only: new Set(stale.patch.knowledge)})
  } catch (e) {
    if (e instanceof CandidateTakenError) await releaseFor(work, String(e.data.mine), `the same candidate was built by ${String(e.data.holder)}`)
    if (e instanceof ClaimedError || e instanceof CandidateTakenError) return undefined
    throw e
  }
}

/** Traces this lane recorded between two ledgers (held-out traces live on its private lane, counted too). */
function countNew(after: Ledger, before: Ledger, lane: string): number {
  const mine = (l: Ledger) => l.select({kinds: ['trace']}).filter(e => e.lane === lane).length
  return mine(after) - mine(before)
}

/** The seeds of this lane's train runs of the skill (of one version of it, given its blob), oldest first, one per run. */
function trainSeeds(ledger: Ledger, lane: string, skill: string, blob?: string): number[] {
  const seeds: number[] = []
  for (const r of ledger.records({kinds: ['manifest'], lanes: [lane]})) {
    const b = r.body
    if (b.split !== 'train' || b.skill?.name !== skill || (blob !== undefined && b.skill.blob !== blob) || typeof b.seed !== 'number') continue
    if (!seeds.includes(b.seed)) seeds.push(b.seed)
  }
  return seeds
}
