import {ExpCommand} from '../cli/base.js'
import {withStore} from '../cli/context.js'
import {ExpError} from '../errors/index.js'
import {fsck, formatProblem, type FsckReport} from '../store/git/fsck.js'

export default class Fsck extends ExpCommand {
  static summary = 'Check every record on every lane: schema, digest, ids, paths, Lamport order, cites.'
  static description = 'Reads the lanes from history (not from the cache). Prints one line per problem: ref, commit, path, what is wrong. Exits non-zero when any problem is found.'
  static enableJsonFlag = true
  static examples = ['<%= config.bin %> fsck', '<%= config.bin %> fsck --json']

  async run(): Promise<FsckReport> {
    await this.parse(Fsck)
    const report = await withStore(this.workDir, store => fsck(store))
    if (!this.jsonEnabled()) {
      for (const p of report.problems) this.log(formatProblem(p))
      this.note(`${report.records} records on ${report.lanes} lanes, ${report.problems.length} problem(s)`)
    }
    if (report.problems.length) {
      throw new ExpError('E_INTEGRITY', `fsck found ${report.problems.length} problem(s)`, {hint: 'a bad record is never rewritten: append a corrected record, or fetch the lane again from a remote that has it', data: {...report}})
    }
    return report
  }
}
