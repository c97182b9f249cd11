import {Flags} from '../vendor/oclif.js'
import {ExpCommand} from '../cli/base.js'
import {configOf, laneOf, withStore} from '../cli/context.js'
import {claimHypothesis, DEFAULT_TTL_SECONDS, MAX_TTL_SECONDS, type ClaimResult} from '../lifecycle/index.js'
import {claimTtl} from '../cli/budgets.js'
import {recordIdArg} from '../cli/record-id-arg.js'

export default class Claim extends ExpCommand {
  static summary = 'Claim a hypothesis for this lane, for a limited time.'
  static description = `Records a claim on this lane. It lapses after --ttl seconds unless this lane claims again (a renewal) and ends with \`exp release\`.
Refused (exit 4) when another lane holds the hypothesis, naming the holder and when its claim lapses. Two clones can claim the same hypothesis offline; after \`exp sync\` every clone agrees that the first live claim in ledger order (lamport, lane, id) holds it, and the others wait.`
  static enableJsonFlag = true
  static jsonOutput = 'the claim: {claim (record id), hypothesis, holder (lane), expires_at, renewed}.'
  static examples = ['<%= config.bin %> claim hy-0123456789abcdef01234567', '<%= config.bin %> claim hy-0123 --ttl 600 --lane agent-b']
  static args = {hypothesis: recordIdArg('hypothesis id (or a unique prefix)')}
  static flags = {
    ttl: Flags.integer({description: `seconds until the claim lapses (default: claims.ttl_seconds of .research/config.yaml, else ${DEFAULT_TTL_SECONDS}; at most ${MAX_TTL_SECONDS})`, min: 1, max: MAX_TTL_SECONDS}),
    lane: Flags.string({description: 'lane that claims (default: EXP_LANE, git config exp.lane, user@host)'}),
  }

  async run(): Promise<ClaimResult> {
    const {args, flags} = await this.parse(Claim)
    const res = await withStore(this.workDir, async store => claimHypothesis(store, {hypothesis: args.hypothesis, lane: await laneOf(store, flags.lane), ttlSeconds: flags.ttl ?? claimTtl(await configOf(store)), now: () => new Date()}))
    if (!this.jsonEnabled()) this.log(`${res.renewed ? 'renewed' : 'claimed'} ${res.hypothesis} for ${res.holder} until ${res.expires_at} (${res.claim})`)
    return res
  }
}
