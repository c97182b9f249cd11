import {Args, Flags} from '../vendor/oclif.js'
import {ExpCommand} from '../cli/base.js'
import {withStore} from '../cli/context.js'
import {runContext, runFlags} from '../cli/run-context.js'
import {table} from '../cli/table.js'
import {num} from '../reports/format.js'
import {evaluateProposal, loadProposal} from '../loop/evaluate.js'
import type {Comparison} from '../evals/compare.js'

export interface EvalOutput {
  proposal: string
  split: string
  baseline: {evaluation: string; success_rate: number}
  candidate: {evaluation: string; success_rate: number}
  comparison: Comparison
}

export default class Eval extends ExpCommand {
  static summary = 'Evaluate a proposal against the skill it was made from, on validation, same scenarios and seeds.'
  static description = 'Writes evaluation records for both (episodes of an unchanged baseline are reused), the candidate one with the paired comparison: wins / losses / ties, exact McNemar p, paired bootstrap CI of the difference, regressions with the invariant that broke, and both score vectors.'
  static enableJsonFlag = true
  static examples = ['<%= config.bin %> eval pr-0123456789abcdef01234567', '<%= config.bin %> eval pr-0123 --repeat 3 --json']
  static args = {proposal: Args.string({description: 'proposal id (a unique prefix is enough)', required: true})}
  static flags = {...runFlags, repeat: Flags.integer({description: 'episodes per scenario', min: 1, default: 2})}

  async run(): Promise<EvalOutput> {
    const {args, flags} = await this.parse(Eval)
    const out = await withStore(this.workDir, async store => {
      const {options} = await runContext(store, this.workDir, flags, l => this.note(l))
      const proposal = loadProposal(await store.ledger(), args.proposal)
      const ev = await evaluateProposal(store, proposal, 'validation', {...options, repeat: flags.repeat})
      return {proposal: proposal.id, split: 'validation', baseline: {evaluation: ev.baseline.evaluation, success_rate: ev.baseline.success_rate}, candidate: {evaluation: ev.candidate.evaluation, success_rate: ev.candidate.success_rate}, comparison: ev.comparison}
    })
    if (!this.jsonEnabled()) {
      const pct = (x: number) => `${(x * 100).toFixed(1)}%`
      const c = out.comparison
      this.log(table([['baseline', pct(out.baseline.success_rate), out.baseline.evaluation], ['candidate', pct(out.candidate.success_rate), out.candidate.evaluation]], ['', 'VALIDATION', 'EVALUATION']))
      this.log(`wins ${c.wins}, losses ${c.losses}, ties ${c.ties}; McNemar p ${c.mcnemar_p.toFixed(4)}; difference ${pct(c.diff)} [${pct(c.bootstrap_ci[0])}, ${pct(c.bootstrap_ci[1])}]`)
      this.log(`regressions: ${c.regressions.length ? '' : 'none'}`)
      for (const r of c.regressions) this.log(`  ${r.scenario}: ${r.invariants.join(', ')}`)
      const dims = Object.keys(c.scores_baseline) as (keyof typeof c.scores_baseline)[]
      this.log(table(dims.map(d => [d, num(c.scores_baseline[d]), num(c.scores_candidate[d])]), ['SCORE', 'BASELINE', 'CANDIDATE']))
      this.log(`next: exp promote ${out.proposal}`)
    }
    return out
  }
}
