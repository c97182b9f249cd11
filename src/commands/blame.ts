import {Args} from '../vendor/oclif.js'
import {ExpCommand} from '../cli/base.js'
import {withStore} from '../cli/context.js'
import {authorityOf} from '../cli/trust.js'
import {mainFlag, mainRefOf} from '../cli/main-ref.js'
import type {Blame} from '../projections/blame.js'
import {readBlame, renderBlameText} from '../reports/index.js'

export default class BlameCmd extends ExpCommand {
  static summary = "Show who put each line of a skill's SKILL.md on main there: promotion, proposal, knowledge."
  static description = `git blame of main's skills/SKILL/SKILL.md, read through the trailers: a line written by a proposal commit (Exp-Proposal) maps to the merge that promoted it (Exp-Promotes), its version, the decision, and the knowledge of the patch edit that added that line; lines of the first commit show as initial, later direct edits of main as edit.`
  static enableJsonFlag = true
  static examples = ['<%= config.bin %> blame onboarding', '<%= config.bin %> blame onboarding --json']
  static args = {skill: Args.string({description: 'skill name (folder under skills/)', required: true})}
  static flags = {...mainFlag}

  async run(): Promise<Blame> {
    const {args, flags} = await this.parse(BlameCmd)
    const res = await withStore(this.workDir, async store => readBlame(store, {mainRef: await mainRefOf(store.repo, this.workDir, flags.main, l => this.note(l)), skill: args.skill, trust: await authorityOf(store, this.workDir, {main: flags.main})}))
    if (!this.jsonEnabled()) this.log(renderBlameText(res))
    return res
  }
}
