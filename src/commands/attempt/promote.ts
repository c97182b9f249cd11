import {ExpCommand} from '../../cli/base.js'
import {withStore} from '../../cli/context.js'
import {attemptContext, attemptFlags} from '../../cli/attempts.js'
import {promoteAttempt, type AttemptDecision} from '../../attempts/promote.js'
import {resolveAttempt} from '../../attempts/lookup.js'
import {recordIdArg} from '../../cli/record-id-arg.js'

export default class AttemptPromote extends ExpCommand {
  static summary = 'Apply the contract\'s promotion policy to an attempt: merge it into main, or reject it.'
  static description = `The policy of the contract on the attempt's base: a clean boundary and a dev improvement beyond the metric's margin; only then the held-out evaluation runs (with the evaluator-only data, from the sealed file and the key) and must improve beyond the margin too, with a paired test when there are several repetitions. Accept: a merge commit of the attempt branch into main with the trailers Exp-Promotes, Exp-Evidence and Exp-Policy, and a decision record. Reject: a decision record; the branch is kept under refs/research/rejected/<id>.`
  static enableJsonFlag = true
  static jsonOutput = 'the decision: {attempt, decision (record id), verdict, checks, reasons, merge, rejected_ref, dev, holdout}.'
  static examples = ['<%= config.bin %> attempt promote at-0123456789abcdef01234567']
  static args = {attempt: recordIdArg('attempt id (a unique prefix is enough)')}
  static flags = {...attemptFlags}

  async run(): Promise<AttemptDecision> {
    const {args, flags} = await this.parse(AttemptPromote)
    const res = await withStore(this.workDir, async store => {
      const c = await attemptContext(store, this.workDir, flags, l => this.note(l))
      const id = resolveAttempt(await store.ledger(), args.attempt)
      return promoteAttempt(store, c.ws, id, {lane: c.lane, mainRef: c.mainRef, worktreeRoot: c.worktreeRoot, hide: c.hide, redact: c.redact, seed: c.seed, ...(c.holdoutKey ? {holdoutKey: c.holdoutKey} : {}), onProgress: line => this.note(line)})
    })
    if (!this.jsonEnabled()) {
      for (const c of res.checks) this.log(`${c.passed ? 'ok  ' : 'FAIL'}  ${c.name}: ${c.detail}`)
      this.log(`${res.verdict.toUpperCase()}  decision ${res.decision}${res.merge ? `, merge ${res.merge.slice(0, 12)}` : ''}${res.rejected_ref ? `, kept at ${res.rejected_ref}` : ''}`)
    }
    return res
  }
}
