import {Flags} from '../../vendor/oclif.js'
import {ExpCommand} from '../../cli/base.js'
import {withStore} from '../../cli/context.js'
import {attemptContext, attemptFlags} from '../../cli/attempts.js'
import {evaluateAttempt, type SplitEvaluation} from '../../attempts/evaluate.js'
import {resolveAttempt} from '../../attempts/lookup.js'
import {oneLine} from '../../records/index.js'
import {AttemptVerdictError} from '../../errors/index.js'
import {reportExpError} from '../../cli/report-error.js'
import {recordIdArg} from '../../cli/record-id-arg.js'

export default class AttemptEval extends ExpCommand {
  static summary = 'Evaluate an attempt: commit its work tree, check the boundary, run the contract\'s evaluator.'
  static description = `Commits what changed in the attempt's work tree onto its branch, checks that only the contract's editable scope changed (git diff --no-renames: a renamed protected file is a deletion plus an addition), and runs the contract's command once per repetition in a fresh checkout (the metrics file is the only authority). Each run is an observation; the validity rules turn it into a verdict against the baseline's run of the same repetition. A timeout, a crash or a missing metrics file is needs_retry: run the command again to resume it with the contract's resume policy. A boundary violation is recorded and the evaluator is not run (exit 6). An evaluation that ends needs_retry or invalid exits 6 too, after its result is printed, and says what to do next.`
  static enableJsonFlag = true
  static jsonOutput = '{attempt, split, source, boundary (the files changed, checked against the scope), verdicts, baseline, summary, ran}; printed as well when summary.outcome is needs_retry or invalid, and the command exits 6.'
  static examples = ['<%= config.bin %> attempt eval at-0123456789abcdef01234567', '<%= config.bin %> attempt eval at-01234 --split holdout --json']
  static args = {attempt: recordIdArg('attempt id (a unique prefix is enough)')}
  static flags = {...attemptFlags, split: Flags.string({description: 'dev or holdout', options: ['dev', 'holdout'], default: 'dev'})}

  async run(): Promise<SplitEvaluation> {
    const {args, flags} = await this.parse(AttemptEval)
    const res = await withStore(this.workDir, async store => {
      const c = await attemptContext(store, this.workDir, flags, l => this.note(l))
      const id = resolveAttempt(await store.ledger(), args.attempt)
      return evaluateAttempt(store, c.ws, id, {lane: c.lane, split: flags.split as 'dev' | 'holdout', worktreeRoot: c.worktreeRoot, hide: c.hide, redact: c.redact, seed: c.seed, ...(c.holdoutKey ? {holdoutKey: c.holdoutKey} : {}), onProgress: line => this.note(line)})
    })
    if (!this.jsonEnabled()) {
      for (const v of res.verdicts) this.log(`${res.split} #${v.body.repetition}  ${v.body.outcome.padEnd(8)} ${v.body.metric ? `${v.body.metric.name} ${v.body.metric.value}` : oneLine(v.body.violations.join('; '))}${v.body.baseline ? ` (baseline ${v.body.baseline.value})` : ''}${v.body.needs_retry ? `  needs_retry: ${v.body.needs_retry.stop_reason}, ${v.body.needs_retry.resume.action}` : ''}`)
      this.log(`${res.summary.outcome.toUpperCase()}  ${res.summary.reason}`)
      if (res.summary.outcome === 'needs_retry') this.log(`resume: exp attempt eval ${res.attempt}${res.split === 'holdout' ? ' --split holdout' : ''}`)
      else if (res.split === 'dev' && res.summary.outcome !== 'invalid') this.log(`next: exp attempt promote ${res.attempt}`)
    }
    // no verdict to act on: the result is printed all the same (--json as it is), the exit
    // status and the next step are the error's (as `exp skills lint` keeps its report)
    const o = res.summary.outcome
    if (o === 'needs_retry' || o === 'invalid') reportExpError(new AttemptVerdictError(res.attempt, res.split, o, res.summary.reason), {json: false, debug: false})
    return res
  }
}
