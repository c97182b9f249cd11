import {ExpCommand} from '../cli/base.js'
import {withStore} from '../cli/context.js'
import {ExpError} from '../errors/index.js'
import {fsckStore, formatProblem, type FsckProblem, type FsckReport} from '../store/git/fsck.js'
import {checkTransitions, type TransitionRule} from '../projections/index.js'

export interface FsckResult extends FsckReport {
  /** hypotheses replayed for illegal status transitions */
  hypotheses: number
  problems: (FsckProblem & {rule?: TransitionRule})[]
}

export default class Fsck extends ExpCommand {
  static summary = 'Check every record on every lane: refs, history, schema, digest, ids, paths, Lamport order, cites, rewinds, hypothesis transitions.'
  static description = `Reads the lanes from history (never from the cache under .git/exp). Then replays every hypothesis in ledger order and reports illegal transitions (e.g. promoted without held-out evidence, an accept decision on a retired hypothesis, an evaluation with no proposal, a release without a claim; docs/frontier.md lists them all).
Prints one line per problem: ref, commit, path, what is wrong; --json gives each problem's class (code) and a hint. Exits non-zero (5) when any problem is found.`
  static enableJsonFlag = true
  static examples = ['<%= config.bin %> fsck', '<%= config.bin %> fsck --json']

  async run(): Promise<FsckResult> {
    await this.parse(Fsck)
    const report = await withStore(this.workDir, async store => {
      const {report: base, ledger} = await fsckStore(store)
      // the layers above check the ledger fsck itself read from history
      const t = checkTransitions(ledger, new Date())
      const extra = t.problems.map(p => ({code: p.rule, ref: p.ref, commit: p.commit, id: p.record, rule: p.rule, message: `${p.rule}: ${p.message}`}))
      return {...base, hypotheses: t.hypotheses, problems: [...base.problems, ...extra]}
    })
    if (!this.jsonEnabled()) {
      for (const p of report.problems) this.log(formatProblem(p))
      this.note(`${report.records} records on ${report.lanes} lanes, ${report.problems.length} problem(s); ${report.hypotheses} hypotheses replayed`)
    }
    if (report.problems.length) {
      throw new ExpError('E_INTEGRITY', `fsck found ${report.problems.length} problem(s)`, {hint: 'a bad record is never rewritten: append a corrected record, or fetch the lane again from a remote that has it', data: {...report}})
    }
    return report
  }
}
