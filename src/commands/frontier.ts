import {Flags} from '../vendor/oclif.js'
import {ExpCommand} from '../cli/base.js'
import {laneOf, withStore} from '../cli/context.js'
import {authorityOf} from '../cli/trust.js'
import {frontier, type Frontier} from '../projections/index.js'

export default class FrontierCmd extends ExpCommand {
  static summary = "This agent's research frontier: what to work on, what others hold, what awaits promotion."
  static description = `A read-only projection of the public lanes (docs/frontier.md): the selected hypothesis with the action it allows, hypotheses held by other lanes (blocked, visible as context), and supported hypotheses with what promotion still requires.
Every clone with the same refs computes the same frontier for the same agent at the same time.`
  static enableJsonFlag = true
  static jsonOutput = '{schema_version, agent_id, as_of, selected: [{hypothesis, reason, allowed_action, claimed}], blocked (what other lanes hold), promotion_candidates}.'
  static examples = ['<%= config.bin %> frontier', '<%= config.bin %> frontier --agent-id agent-b --json']
  static flags = {
    'agent-id': Flags.string({description: 'the agent (lane) to compute it for (default: this lane); --lane is the same flag, as in every other command', aliases: ['lane']}),
  }

  async run(): Promise<Frontier> {
    const {flags} = await this.parse(FrontierCmd)
    const res = await withStore(this.workDir, async store => {
      const authority = await authorityOf(store, this.workDir)
      const note = authority.ignoredNote()
      if (note) this.note(note)
      return frontier(authority.ledger, flags['agent-id'] ?? (await laneOf(store)), new Date(), {admit: authority.admit})
    })
    if (!this.jsonEnabled()) {
      const s = res.selected
      this.log(`agent ${res.agent_id}`)
      this.log(s ? `selected  ${s.hypothesis}  ${s.allowed_action}  (${s.reason})` : 'selected  (nothing to do)')
      for (const b of res.blocked) this.log(`blocked   ${b.hypothesis}  ${b.blocked_by} until ${b.until}`)
      for (const p of res.promotion_candidates) this.log(`promote?  ${p.hypothesis}  requires ${p.requires.join(', ')}`)
    }
    return res
  }
}
