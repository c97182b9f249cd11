import {Flags} from '../vendor/oclif.js'
import {ExpCommand} from '../cli/base.js'
import {laneOf, withStore} from '../cli/context.js'
import {reopenHypothesis, type RetireResult} from '../lifecycle/index.js'
import {recordIdArg} from '../cli/record-id-arg.js'

export default class Reopen extends ExpCommand {
  static summary = 'Reopen a retired hypothesis.'
  static description = 'Records a note with action reopen; the status becomes whatever the evidence says (including evidence recorded while it was retired). Refused (exit 4) when it is not retired.'
  static enableJsonFlag = true
  static jsonOutput = '{note (record id), hypothesis, action: reopen, was (the status before)}.'
  static examples = ['<%= config.bin %> reopen hy-0123456789abcdef01234567 --reason "the new workflow changes what the check covers"']
  static args = {hypothesis: recordIdArg('hypothesis id (or a unique prefix)')}
  static flags = {
    reason: Flags.string({description: 'why (kept in the record)', required: true}),
    lane: Flags.string({description: 'lane to record on (default: EXP_LANE, git config exp.lane, user@host)'}),
  }

  async run(): Promise<RetireResult> {
    const {args, flags} = await this.parse(Reopen)
    const res = await withStore(this.workDir, async store => reopenHypothesis(store, {hypothesis: args.hypothesis, lane: await laneOf(store, flags.lane), reason: flags.reason, now: () => new Date()}))
    if (!this.jsonEnabled()) this.log(`reopened ${res.hypothesis} (was ${res.was}): ${res.note}`)
    return res
  }
}
