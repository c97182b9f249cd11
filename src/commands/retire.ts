import {Flags} from '../vendor/oclif.js'
import {ExpCommand} from '../cli/base.js'
import {laneOf, withStore} from '../cli/context.js'
import {retireHypothesis, type RetireResult} from '../lifecycle/index.js'
import {recordIdArg} from '../cli/record-id-arg.js'

export default class Retire extends ExpCommand {
  static summary = 'Retire a hypothesis: no longer worth exploring, kept as negative evidence.'
  static description = 'Records a note with action retire. Nothing is deleted: its evidence stays in the graph, and `exp reopen` undoes the retirement. Refused (exit 4) when it is retired already.'
  static enableJsonFlag = true
  static jsonOutput = '{note (record id), hypothesis, action: retire, was (the status before)}.'
  static examples = ['<%= config.bin %> retire hy-0123456789abcdef01234567 --reason "three attempts, no effect on validation"']
  static args = {hypothesis: recordIdArg('hypothesis id (or a unique prefix)')}
  static flags = {
    reason: Flags.string({description: 'why (kept in the record)', required: true}),
    lane: Flags.string({description: 'lane to record on (default: EXP_LANE, git config exp.lane, user@host)'}),
  }

  async run(): Promise<RetireResult> {
    const {args, flags} = await this.parse(Retire)
    const res = await withStore(this.workDir, async store => retireHypothesis(store, {hypothesis: args.hypothesis, lane: await laneOf(store, flags.lane), reason: flags.reason, now: () => new Date()}))
    if (!this.jsonEnabled()) this.log(`retired ${res.hypothesis} (was ${res.was}): ${res.note}`)
    return res
  }
}
