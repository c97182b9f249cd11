import {Flags} from '../vendor/oclif.js'
import {ExpCommand} from '../cli/base.js'
import {withStore} from '../cli/context.js'
import {counted} from '../cli/table.js'
import {ExpError} from '../errors/index.js'
import {fsckStore, formatProblem, type FsckProblem, type FsckReport} from '../store/git/fsck.js'
import {checkTransitions, type TransitionRule} from '../projections/index.js'
import {inconsistentEvidence} from '../projections/evidence-counts.js'
import {promotionOf} from '../projections/mainline.js'
import {authorityOf} from '../cli/trust.js'
import {mainFlagRef, mainRefOf} from '../cli/main-ref.js'
import {holdoutKeyFile} from '../cli/run-context.js'
import {readMainline} from '../reports/sources.js'
import {findHoldoutKey} from '../scenarios/key.js'
import type {ReplayLog, TrustProblemClass} from '../trust/types.js'
import type {Ledger} from '../store/index.js'
import {LANE_FAILURES} from '../store/problems.js'
import {GitWorkspace} from '../workspace/git.js'

export interface FsckResult extends FsckReport {
  /** hypotheses replayed for illegal status transitions */
  hypotheses: number
  /** evaluations and decisions checked against their evidence (docs/trust.md) */
  evidence: {
    evaluations: number
    decisions: number
    promotions: number
    /** with --replay: every episode was replayed (none could not be) */
    replayed: boolean
    /** with --replay: how many episodes (verifications) were replayed, and those that could not be, grouped by manifest and reason */
    replay?: ReplaySummary
  }
  problems: (FsckProblem & {rule?: TransitionRule; class?: TrustProblemClass})[]
}

export interface ReplaySummary {
  episodes: number
  replayed: number
  not_replayed: number
  groups: {manifest?: string; split?: string; episodes: number; reason: string}[]
}

/** What the trust checks replayed of the ledger's verifications, and what they could not, by manifest and reason. */
function replaySummary(ledger: Ledger, log: ReplayLog | undefined): ReplaySummary {
  const all = ledger.select({kinds: ['verification'], includePrivate: true})
  const groups = new Map<string, ReplaySummary['groups'][number]>()
  const add = (manifest: string | undefined, reason: string) => {
    const k = `${manifest ?? ''}\0${reason}`
    const g = groups.get(k)
    if (g) g.episodes++
    else {
      const me = manifest ? ledger.get(manifest) : undefined
      groups.set(k, {...(manifest ? {manifest} : {}), ...(me?.kind === 'manifest' ? {split: ledger.load<'manifest'>(me).body.split} : {}), episodes: 1, reason})
    }
  }
  let replayed = 0
  for (const e of all) {
    if (log?.replayed.has(e.id)) replayed++
    else {
      const m = log?.missed.get(e.id)
      add(m?.manifest, m?.reason ?? 'no evaluation that was checked cites it (an interrupted run, or cited only by evidence that failed an earlier check)')
    }
  }
  return {episodes: all.length, replayed, not_replayed: all.length - replayed, groups: [...groups.values()]}
}

export default class Fsck extends ExpCommand {
  static summary = 'Check every record on every lane: refs, history, schema, digest, ids, paths, Lamport order, cites, rewinds, transitions, and whether evidence stands.'
  static description = `Reads the lanes from history (never from the cache under .git/exp): lane refs, the walk of each lane, each record file, Lamport order, duplicate ids, dangling cites, artifacts, lanes rewound since this clone saw them (docs/store.md). Then replays every hypothesis in ledger order and reports illegal transitions (e.g. promoted without held-out evidence, an accept decision on a retired hypothesis, an evaluation with no proposal, a release without a claim; docs/frontier.md lists them all), and names every mined pattern (evidence record) whose support and failures are not the numbers of supporting runs and counterexamples it cites (inconsistent_evidence; docs/mining.md).
Then checks the evidence (docs/trust.md): every evaluation must recompute from the verifications it cites, each of a trace of the same manifest, under an evaluator the policy names, signed when the policy requires it (classes forged_evaluation, inconsistent_evaluation, foreign_evaluator, unsigned_evidence), and a contract's verdict must be on its attempt's own lane (foreign_measurement, naming the lane that wrote it); every decision must be what the policy gives on that evidence (forged_decision; a reject must rest on evidence of its proposal, or say main moved from its base while main is elsewhere now), and of two decisions of one proposal that disagree, a standing accept counts, else the first reject (conflicting_decision); every merge on main with Exp-Promotes must be named by a standing accept decision (unverified_promotion). While a lane cannot be read, the evidence on it is missing from what is checked: each of these problems then says it is unverifiable until that lane is repaired (its class is kept). With --replay, every verification's trace is also replayed in a fresh world and graded again (replay_mismatch); held-out episodes need the held-out key. Episodes that cannot be replayed here (their manifest's dataset tree is not in the repository, a sealed split without the key, cited by no evaluation) are counted and named by manifest and reason, and the summary says how many were replayed and how many could not be: they are not problems (an experiment on a folder of its own is allowed), but no decision rests on them (docs/trust.md).
Prints one line per problem: ref, commit, path, what is wrong; --json gives each problem's class (code) and a hint. Exits non-zero (5) when any problem is found.`
  static enableJsonFlag = true
  static jsonOutput = '{lanes, records, problems: [{code, ref, commit, id, message, hint}], hypotheses, evidence: {evaluations, decisions, promotions, replayed (with --replay: every episode was), replay (with --replay: {episodes, replayed, not_replayed, groups: [{manifest, split, episodes, reason}]})}}; when problems is not empty the command exits 5 and the same object is in error.data.'
  static examples = ['<%= config.bin %> fsck', '<%= config.bin %> fsck --replay', '<%= config.bin %> fsck --json']
  static flags = {
    replay: Flags.boolean({description: 'also replay every verification in a fresh world and grade it again (slower)'}),
    main: Flags.string({description: 'branch whose promotion merges to check (default: config main_branch)'}),
  }

  async run(): Promise<FsckResult> {
    const {flags} = await this.parse(Fsck)
    // (a --main that names nothing is said before the repository is read)
    if (flags.main !== undefined) mainFlagRef(flags.main)
    const report = await withStore(this.workDir, async store => {
      // the layers above check the ledger fsck itself read from history, never the cache's
      const {report: base, ledger} = await fsckStore(store)
      const t = checkTransitions(ledger, new Date())
      const extra = t.problems.map(p => ({code: p.rule, ref: p.ref, commit: p.commit, id: p.record, rule: p.rule, message: `${p.rule}: ${p.message}`}))
      // mined patterns whose counts are not the runs they cite: no miner wrote them, and the reports leave them out
      const counts = inconsistentEvidence(ledger).map(p => ({code: 'inconsistent_evidence', ref: p.ref, commit: p.commit, id: p.id, message: `inconsistent_evidence: ${p.id}: ${p.reason}`, hint: 'the miner writes support and failures as the numbers of runs an evidence record cites: this one was written otherwise, and `exp report` leaves it out (append a corrected record, or ask who owns the lane)'}))
      const key = flags.replay ? await findHoldoutKey({env: process.env, defaultFile: holdoutKeyFile(store.commonDir)}) : undefined
      const authority = await authorityOf(store, this.workDir, {ledger, main: flags.main, quiet: true, ...(flags.replay ? {replay: 'all' as const, ...(key ? {holdoutKey: key.key} : {})} : {})})
      const mainRef = await mainRefOf(store.repo, this.workDir, flags.main)
      const promotions = (await readMainline(new GitWorkspace(store), mainRef).catch(e => {
        // no main branch yet is nothing to check; a --main that names no branch is a mistake
        if (flags.main !== undefined) throw e
        return []
      })).flatMap(c => promotionOf(c) ?? [])
      // evidence on a lane that cannot be read is missing from the ledger checked: an honest
      // evaluation then looks forged. Each trust problem says so (its class is kept: a forgery
      // in a damaged repository is still one), with the repair as the next step
      const unread = [...new Set(base.problems.filter(p => LANE_FAILURES.has(p.code)).map(p => p.ref))]
      const caveat = unread.length ? ` (unverifiable until ${counted(unread.length, 'lane')} that cannot be read, ${unread.join(', ')}, ${unread.length > 1 ? 'are' : 'is'} repaired: the evidence may be there)` : ''
      const hint = unread.length ? 'repair the unreadable lanes first (`exp sync` from a remote that has them, or restore the objects), then run `exp fsck` again' : undefined
      const trust = [...authority.problems(), ...authority.promotionProblems(promotions)].map(p => ({code: p.class, ref: p.ref ?? mainRef, commit: p.commit, id: p.id, class: p.class, message: `${p.class}: ${p.id}: ${p.reason}${caveat}`, ...(hint ? {hint} : {})}))
      // what was replayed is counted from what the checks replayed, never taken from the flag
      const replay = flags.replay ? replaySummary(ledger, authority.input.replays) : undefined
      const evidence = {evaluations: ledger.select({kinds: ['evaluation'], includePrivate: true}).length, decisions: ledger.select({kinds: ['decision'], includePrivate: true}).length, promotions: promotions.length, replayed: !!replay && !replay.not_replayed, ...(replay ? {replay} : {})}
      return {...base, hypotheses: t.hypotheses, evidence, problems: [...base.problems, ...extra, ...counts, ...trust]}
    })
    if (!this.jsonEnabled()) {
      for (const p of report.problems) this.log(formatProblem(p))
      const r = report.evidence.replay
      for (const g of r?.groups ?? []) this.note(`warning: ${counted(g.episodes, 'episode')}${g.manifest ? ` of manifest ${g.manifest}${g.split ? ` (${g.split})` : ''}` : ''} not replayed: ${g.reason}`)
      const replayed = r ? (r.not_replayed ? `; ${r.replayed} of ${counted(r.episodes, 'episode')} replayed, ${r.not_replayed} could not be (above)` : `; ${counted(r.episodes, 'episode')} replayed, every one`) : ''
      this.note(`${counted(report.records, 'record')} on ${counted(report.lanes, 'lane')}, ${counted(report.problems.length, 'problem')}; ${counted(report.hypotheses, 'hypothesis', 'hypotheses')} replayed; ${counted(report.evidence.evaluations, 'evaluation')}, ${counted(report.evidence.decisions, 'decision')} and ${counted(report.evidence.promotions, 'promotion merge')} checked${replayed}`)
    }
    if (report.problems.length) {
      throw new ExpError('E_INTEGRITY', `fsck found ${report.problems.length} problem(s)`, {hint: 'a bad record is never rewritten: append a corrected record, or fetch the lane again from a remote that has it; evidence that does not stand is ignored by every view (docs/trust.md)', data: {...report}})
    }
    return report
  }
}
