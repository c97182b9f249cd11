import {Flags} from '../vendor/oclif.js'
import {ExpCommand} from '../cli/base.js'
import {laneOf, withStore} from '../cli/context.js'
import {releaseHypothesis, type ReleaseResult} from '../lifecycle/index.js'
import {recordIdArg} from '../cli/record-id-arg.js'

export default class Release extends ExpCommand {
  static summary = "Give back this lane's claim of a hypothesis."
  static description = 'Records a release naming the claim it ends; the next lane in line (if any) holds the hypothesis from then on. Refused (exit 4) when this lane holds no claim of it.'
  static enableJsonFlag = true
  static jsonOutput = '{release (record id), hypothesis, holder, claim (the claim it ends)}.'
  static examples = ['<%= config.bin %> release hy-0123456789abcdef01234567 --reason "out of budget"']
  static args = {hypothesis: recordIdArg('hypothesis id (or a unique prefix)')}
  static flags = {
    reason: Flags.string({description: 'why (kept in the record)'}),
    lane: Flags.string({description: 'lane that releases (default: EXP_LANE, git config exp.lane, user@host)'}),
  }

  async run(): Promise<ReleaseResult> {
    const {args, flags} = await this.parse(Release)
    const res = await withStore(this.workDir, async store => releaseHypothesis(store, {hypothesis: args.hypothesis, lane: await laneOf(store, flags.lane), reason: flags.reason, now: () => new Date()}))
    if (!this.jsonEnabled()) this.log(`released ${res.hypothesis} (claim ${res.claim}) from ${res.holder}: ${res.release}`)
    return res
  }
}
