import {GitWorkspace} from '../workspace/git.js'
import {Flags} from '../vendor/oclif.js'
import {ExpCommand} from '../cli/base.js'
import {withStore} from '../cli/context.js'
import {runContext, runFlags} from '../cli/run-context.js'
import {episodeProgress} from '../cli/progress.js'
import {loadProposal} from '../loop/evaluate.js'
import {promoteProposal, type PromoteResult} from '../loop/promote.js'
import {recordIdArg} from '../cli/record-id-arg.js'

export default class Promote extends ExpCommand {
  static summary = 'Apply the promotion policy to an evaluated proposal: merge it into main, or reject it.'
  static description = `The policy is .research/policy.yaml as committed on main (versioned, cited by the decision). Validation first: success must improve, regressions stay within the limit, no score dimension worse than its tolerance. Only then the sealed held-out split is evaluated (each look is counted) and must not get worse.
Accept: a merge commit of the proposal branch into main with the trailers Exp-Promotes, Exp-Evidence and Exp-Policy, and a decision record. When main is checked out the work tree is updated as git merge would (refused while it has uncommitted changes).
Reject: a decision record with the reasons; the proposal's commit is kept under refs/research/rejected/<id>, and its branch is deleted only while it is still at that commit and checked out nowhere (a branch with commits of its own is kept, and said so).
Judged on the scenarios committed on main: a --scenarios folder (or a scenarios/ with uncommitted changes) that is not main's is refused before anything runs, and validation evaluations run on another folder (exp eval --scenarios DIR: experiments) are ignored (docs/trust.md).`
  static enableJsonFlag = true
  static jsonOutput = 'the decision: {decision (record id), verdict (accept or reject), checks, reasons, decided_by, merge (the merge commit on main), rejected_ref, kept_branch (why the branch of a rejected proposal was kept), validation, holdout, ignored, policy}.'
  static examples = ['<%= config.bin %> promote pr-0123456789abcdef01234567']
  static args = {proposal: recordIdArg('proposal id (a unique prefix is enough)')}
  static flags = {...runFlags, repeat: Flags.integer({description: 'held-out episodes per scenario', min: 1, default: 2})}

  async run(): Promise<PromoteResult> {
    const {args, flags} = await this.parse(Promote)
    // episodes on a terminal's stderr; nothing in a pipe or a log (src/cli/progress.ts)
    const progress = episodeProgress('promote')
    const res = await withStore(this.workDir, async store => {
      const {options, mainRef} = await runContext(store, this.workDir, flags, l => this.note(l))
      const ledger = await store.ledger()
      return promoteProposal(store, new GitWorkspace(store), ledger, loadProposal(ledger, args.proposal), {...options, ...progress.options, repeat: flags.repeat, mainRef})
    })
    progress.done()
    if (!this.jsonEnabled()) {
      for (const c of res.checks) this.log(`${c.passed ? 'ok  ' : 'FAIL'}  ${c.name}: ${c.detail}`)
      if (res.kept_branch) this.note(res.kept_branch)
      this.log(`${res.verdict.toUpperCase()}  decision ${res.decision}${res.merge ? `, merge ${res.merge.slice(0, 12)}` : ''}${res.rejected_ref ? `, kept at ${res.rejected_ref}` : ''}`)
    }
    return res
  }
}
