import {GitWorkspace} from '../workspace/git.js'
import {Flags} from '../vendor/oclif.js'
import {appendFile} from 'node:fs/promises'
import path from 'node:path'
import {ExpCommand} from '../cli/base.js'
import {withStore} from '../cli/context.js'
import {runContext, runFlags} from '../cli/run-context.js'
import {gateBaseOf} from '../cli/main-ref.js'
import {repositoryHidden} from '../cli/run-context.js'
import {ExpError, isExpError} from '../errors/index.js'
import {gate, gateMarkdown, knowledgeScopeHint, type GateResult} from '../gate/gate.js'
import {outputPath} from '../cli/out-path.js'
import {episodeProgress} from '../cli/progress.js'
import {gateErrorJUnit, gateJUnit} from '../gate/junit.js'
import {gateComment, gateErrorComment} from '../gate/comment.js'
import {MAX_SHARDS, parseShard} from '../evals/runner/shard.js'
import {writeOutputFile} from '../write-output.js'

export default class Gate extends ExpCommand {
  static summary = 'The pull-request gate: scope check, then head against base on validation and held-out.'
  static description = `What CI runs on a pull request. Fails when the diff touches anything outside the contract's editable scope (default skills/** and the knowledge/*.yaml a proposal writes) or a protected path (scenarios/, .research/, graders), or adds a symbolic link or submodule, or changes a .gitattributes or .gitmodules file, anywhere. Otherwise every changed skill is evaluated, head against base, on validation and held-out, the records go to the \`ci\` lane in CI (where the CI variable is set, as on GitHub Actions) and to your own lane elsewhere, so a gate run on a laptop never writes the lane CI writes (held-out details to the lane's private ref), a Markdown summary is printed (and appended to $GITHUB_STEP_SUMMARY when set), and the command exits non-zero when the promotion policy fails. Contract and policy are read from the base.
--junit FILE writes the checks as JUnit XML, --comment FILE the Markdown of the pull-request comment (its first line is a marker the workflow of \`exp ci init\` uses to update one comment instead of adding more); both are written when the gate fails too.
--approved-by NAME says a maintainer approved this head: with success.allow_neutral in the policy, a candidate that is not worse on validation (no regressions, held-out not worse) then passes.
With a sequential policy (version 2, \`sequential: {looks: N}\`) validation runs pass by pass and stops at the first pass where the policy decides, as \`exp eval\` does.
Over several CI jobs (\`exp ci init --shards N\`): \`--shard I/N\` runs only slice I of the validation episodes of base and head (every pass), on lane <lane>-shard-I, ends with a receipt naming what it ran, and decides nothing; \`--shards N\` then decides, reusing exactly the episodes the N receipts vouch for (each replayed), running anything missing and the held-out split itself. The result is the one an unsharded gate gives.`
  static enableJsonFlag = true
  static jsonOutput = '{base, head, scope, skills, contracts, passed, certified, reasons, notes, shard}: the scope check, then each changed skill\'s and contract\'s evaluation of base and head and its decision checks; when the gate fails it exits 6 and the same object is in error.data.'
  static examples = [
    '<%= config.bin %> gate',
    '<%= config.bin %> gate --base origin/main --head HEAD --junit exp-gate.xml --comment exp-gate.md',
    'GITHUB_BASE_REF=main <%= config.bin %> gate',
    '<%= config.bin %> gate --base main --head reword --approved-by alice',
    '<%= config.bin %> gate --base origin/main --head HEAD --shard 2/4',
    '<%= config.bin %> gate --base origin/main --head HEAD --shards 4 --junit exp-gate.xml',
  ]
  static flags = {
    ...runFlags,
    base: Flags.string({description: 'base revision (default: refs/remotes/origin/$GITHUB_BASE_REF in CI, else the main branch — asked for when that is the head itself or not the branch origin\'s HEAD names: the checked-out config could name its own base)'}),
    head: Flags.string({description: 'head revision', default: 'HEAD'}),
    repeat: Flags.integer({description: 'episodes per scenario on held-out (and on validation when the policy has no sequential design; else its passes)', min: 1, default: 2}),
    lane: Flags.string({description: 'lane for the gate records (default: ci in CI, where the CI variable is set; else your lane: EXP_LANE, git config exp.lane, user@host)'}),
    junit: Flags.string({description: 'also write the result as JUnit XML to this file'}),
    comment: Flags.string({description: 'also write the pull-request comment (Markdown) to this file'}),
    'approved-by': Flags.string({description: 'a maintainer who approved this head (lets a not-worse candidate pass when the policy sets success.allow_neutral)'}),
    'require-certified': Flags.boolean({description: 'fail a gate that passes on validation only because the held-out split (or a contract\'s private data) is sealed and no key is available; the workflow of exp ci init sets it'}),
    shard: Flags.string({description: 'a shard job: run slice I of N of the validation episodes (I/N), record a receipt, decide nothing', exclusive: ['shards']}),
    shards: Flags.integer({description: 'the deciding job after N shard jobs: reuse the episodes their receipts (on lanes <lane>-shard-1..N) vouch for', min: 1, max: MAX_SHARDS, exclusive: ['shard']}),
  }

  async run(): Promise<GateResult> {
    const {flags} = await this.parse(Gate)
    // checked before the gate runs: a path it cannot write to fails now, not after the episodes
    const junit = flags.junit !== undefined ? outputPath(this.workDir, flags.junit, '--junit', 'file') : undefined
    const comment = flags.comment !== undefined ? outputPath(this.workDir, flags.comment, '--comment', 'file') : undefined
    // episodes on a terminal's stderr; nothing in a pipe or a CI log (src/cli/progress.ts)
    const progress = episodeProgress('gate')
    let res: GateResult
    try {
      res = await withStore(this.workDir, async store => {
        const {options, mainRef} = await runContext(store, this.workDir, {...flags, lane: flags.lane ?? (inCi() ? 'ci' : undefined)}, l => this.note(l))
        const ws = new GitWorkspace(store)
        const base = flags.base ?? (process.env.GITHUB_BASE_REF ? `refs/remotes/origin/${process.env.GITHUB_BASE_REF}` : await gateBaseOf(store.repo, ws, mainRef, flags.head))
        return gate(store, ws, {...options, ...progress.options, worktreeRoot: path.join(store.commonDir, 'exp', 'worktrees'), hide: repositoryHidden(store), base, head: flags.head, repeat: flags.repeat, approvedBy: flags['approved-by'], ...(flags.shard ? {shard: parseShard(flags.shard)} : {}), ...(flags.shards ? {shards: flags.shards} : {})})
      })
    } catch (e) {
      progress.done()
      // the reports say the gate could not run, so CI shows why instead of an old result
      const message = e instanceof Error ? e.message : String(e)
      if (junit) await writeOutputFile(junit, gateErrorJUnit(message))
      if (comment) await writeOutputFile(comment, gateErrorComment(message, isExpError(e) ? e.hint : undefined))
      throw e
    }
    progress.done()
    // (a pull request from a fork gets no secrets: without the key its gate can only pass
    // uncertified, and a passing check must not stand for a held-out split nobody judged)
    if (flags['require-certified'] && res.passed && !res.certified && !res.shard) res = {...res, passed: false, reasons: [...res.reasons, NOT_CERTIFIED]}
    const md = gateMarkdown(res)
    if (!this.jsonEnabled()) this.log(md)
    if (process.env.GITHUB_STEP_SUMMARY) await appendFile(process.env.GITHUB_STEP_SUMMARY, `${md}\n`)
    if (junit) await writeOutputFile(junit, gateJUnit(res))
    if (comment) await writeOutputFile(comment, gateComment(res, {approvedBy: flags['approved-by']}))
    if (!res.passed) throw new ExpError('E_POLICY', `gate failed: ${res.reasons.join('; ')}`, {hint: res.scope.ok ? policyHint(res) : knowledgeScopeHint(res.scope.outside) ?? (res.scope.outside.length || res.scope.protected.length ? 'a pull request may only change the editable scope of the research contracts on the base (.research/contracts/*.yaml, or an older .research/contract.yaml)' : 'a pull request may change regular files only, and not how git checks files out: commit the content in place of the symbolic link or submodule, and leave .gitattributes and .gitmodules as the base has them'), data: {...res}})
    return res
  }
}

/**
 * Whether this runs in CI: the CI variable every major CI service sets (GitHub Actions,
 * GitLab, CircleCI, Buildkite…), unless it says false.
 */
function inCi(): boolean {
  const v = process.env.CI?.trim().toLowerCase()
  return !!v && v !== 'false' && v !== '0'
}

/** Which policy the pull request did not satisfy: the skills' (.research/policy.yaml), a contract's own, or none yet (a base that moved). */
/** the reason of a gate that --require-certified fails */
const NOT_CERTIFIED = 'not certified: the held-out split is sealed and no key is available (EXP_HOLDOUT_KEY), so only validation was judged (--require-certified)'

function policyHint(res: GateResult): string {
  if (res.reasons.includes(NOT_CERTIFIED) && res.reasons.length === 1) return 'give the job the key: the repository secret EXP_HOLDOUT_KEY. A pull request from a fork gets no secrets: a maintainer pushes its branch to this repository, whose pull request the gate then judges in full'
  if (res.stale.length) return 'merge or rebase the pull request onto the base, then run the gate again'
  const where = [...(res.skills.some(s => s.verdict === 'reject') ? ['.research/policy.yaml (skills)'] : []), ...res.contracts.filter(c => c.verdict === 'reject').map(c => `the promotion policy of .research/contracts/${c.contract}.yaml`)]
  return `the candidate does not satisfy ${where.join(' and ') || 'the promotion policy'}`
}
