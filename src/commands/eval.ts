import {GitWorkspace} from '../workspace/git.js'
import {Flags} from '../vendor/oclif.js'
import {ExpCommand} from '../cli/base.js'
import {withStore} from '../cli/context.js'
import {noteUncommittedJudges} from '../cli/uncommitted.js'
import {runContext, runFlags} from '../cli/run-context.js'
import {episodeProgress} from '../cli/progress.js'
import {table} from '../cli/table.js'
import {num, pct} from '../reports/format.js'
import {evaluateProposal, loadProposal, type ProposalEvaluation} from '../loop/evaluate.js'
import {mainPolicy} from '../loop/promote.js'
import type {Comparison} from '../evals/compare.js'
import {assertProposalFiles} from '../loop/proposal-files.js'
import {recordIdArg} from '../cli/record-id-arg.js'

export interface EvalOutput {
  proposal: string
  split: string
  baseline: {evaluation: string; success_rate: number; episodes: number}
  candidate: {evaluation: string; success_rate: number; episodes: number}
  comparison: Comparison
  /** with a sequential policy: the pass it stopped after, why, and the comparison after each pass */
  sequential?: ProposalEvaluation['sequential']
  /** episodes run (not reused) for this evaluation */
  recorded: number
}

export default class Eval extends ExpCommand {
  static summary = 'Evaluate a proposal against the skill it was made from, on validation, same scenarios and seeds.'
  static description = `Writes evaluation records for both (episodes of an unchanged baseline are reused), the candidate one with the paired comparison: wins / losses / ties, exact McNemar p, paired bootstrap CI of the difference, regressions with the invariant that broke, and both score vectors.
When the policy on the main branch has a sequential design (version 2, \`sequential: {looks: N}\`), both run one pass over the validation split at a time (every scenario once, the same seeds) and stop at the first pass where the policy decides: its McNemar error is spent across the passes, so an early stop is as sound as a full run. Without it, --repeat repetitions are run at once.
Episodes that are recorded already and replay are reused, whoever recorded them: a sharded \`exp run validation --skill REV --repeat N --shard I/N\` on other machines, after \`exp sync\`, leaves nothing to run here. When the policy on main requires signed evidence, only this lane's own episodes and those a standing (signed) evaluation pins are reused: the rest are run here (docs/trust.md).`
  static enableJsonFlag = true
  static jsonOutput = '{proposal, split, baseline, candidate (success and evaluation of each), comparison (wins, losses, ties, McNemar p), sequential (the passes run), recorded}.'
  static examples = ['<%= config.bin %> eval pr-0123456789abcdef01234567', '<%= config.bin %> eval pr-0123 --repeat 3 --json']
  static args = {proposal: recordIdArg('proposal id (a unique prefix is enough)')}
  static flags = {...runFlags, repeat: Flags.integer({description: 'episodes per scenario, when the policy has no sequential design (else its looks)', min: 1, default: 2})}

  async run(): Promise<EvalOutput> {
    const {args, flags} = await this.parse(Eval)
    // episodes on a terminal's stderr; nothing in a pipe or a log (src/cli/progress.ts)
    const progress = episodeProgress('eval validation')
    const out = await withStore(this.workDir, async store => {
      const {options, mainRef} = await runContext(store, this.workDir, flags, l => this.note(l))
      const ledger = await store.ledger()
      const proposal = loadProposal(ledger, args.proposal)
      const ws = new GitWorkspace(store)
      await noteUncommittedJudges(ws, store.repo.workDir, l => this.note(l))
      await assertProposalFiles(ws, ledger, proposal)
      const policy = (await mainPolicy(ws, mainRef))?.policy
      const ev = await evaluateProposal(store, ws, proposal, 'validation', {...options, ...progress.options, repeat: flags.repeat, ...(policy ? {policy} : {})})
      return {
        proposal: proposal.id,
        split: 'validation',
        baseline: {evaluation: ev.baseline.evaluation, success_rate: ev.baseline.success_rate, episodes: ev.baseline.total},
        candidate: {evaluation: ev.candidate.evaluation, success_rate: ev.candidate.success_rate, episodes: ev.candidate.total},
        comparison: ev.comparison,
        ...(ev.sequential ? {sequential: ev.sequential} : {}),
        recorded: ev.baseline.recorded + ev.candidate.recorded,
      }
    })
    progress.done()
    if (!this.jsonEnabled()) {
      const c = out.comparison
      this.log(table([['baseline', pct(out.baseline.success_rate), out.baseline.evaluation], ['candidate', pct(out.candidate.success_rate), out.candidate.evaluation]], ['', 'VALIDATION', 'EVALUATION']))
      this.log(`wins ${c.wins}, losses ${c.losses}, ties ${c.ties}; two-sided McNemar p ${c.mcnemar_p.toFixed(4)}; difference ${pct(c.diff)} [${pct(c.bootstrap_ci[0])}, ${pct(c.bootstrap_ci[1])}]`)
      if (out.sequential) this.log(`sequential: stopped after pass ${out.sequential.look} of ${out.sequential.looks} (${out.sequential.why}); ${out.recorded} episode(s) run, the rest reused`)
      this.log(`regressions: ${c.regressions.length ? '' : 'none'}`)
      for (const r of c.regressions) this.log(`  ${r.scenario}: ${r.invariants.join(', ')}`)
      const dims = Object.keys(c.scores_baseline) as (keyof typeof c.scores_baseline)[]
      this.log(table(dims.map(d => [d, num(c.scores_baseline[d]), num(c.scores_candidate[d])]), ['SCORE', 'BASELINE', 'CANDIDATE']))
      this.log(`next: exp promote ${out.proposal}`)
    }
    return out
  }
}
