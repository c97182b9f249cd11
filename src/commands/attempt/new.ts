import {Args, Flags} from '../../vendor/oclif.js'
import {ExpCommand} from '../../cli/base.js'
import {withStore} from '../../cli/context.js'
import {statSync} from 'node:fs'
import path from 'node:path'
import {attemptContext, attemptFlags, checkAttemptContract} from '../../cli/attempts.js'
import {InvalidInputError} from '../../errors/index.js'
import {openAttempt} from '../../attempts/open.js'

export default class AttemptNew extends ExpCommand {
  static summary = 'Open an attempt under a research contract: a branch exp/attempt/<id> and a work tree to edit.'
  static description = `The attempt starts from the main branch, under the contract committed there (.research/contracts/NAME.yaml). Edit the files of the contract's editable scope in the printed work tree, then run \`exp attempt eval ID\`. The attempt record's id derives from contract, lane and ordinal: running the command again with --ordinal N finds the same attempt.`
  static enableJsonFlag = true
  static jsonOutput = '{id, branch, path (its work tree), base, ordinal, created (false when it was open already)}.'
  static examples = ['<%= config.bin %> attempt new tuning', '<%= config.bin %> attempt new tuning --hypothesis hy-0123456789abcdef01234567 --path ../try-1']
  static args = {contract: Args.string({description: 'contract name', required: true})}
  static flags = {
    ...attemptFlags,
    hypothesis: Flags.string({description: 'the hypothesis this attempt tests'}),
    path: Flags.string({description: 'where to put its work tree (default: .git/exp/worktrees/<id>)'}),
    ordinal: Flags.integer({description: 'the n-th attempt of this lane (default: the next one)', min: 1}),
    reason: Flags.string({description: 'what the attempt tries'}),
  }

  async run(): Promise<{id: string; branch: string; path: string; base: string; ordinal: number; created: boolean}> {
    const {args, flags} = await this.parse(AttemptNew)
    const res = await withStore(this.workDir, async store => {
      const c = await attemptContext(store, this.workDir, flags)
      await checkAttemptContract(c.ws, c.mainRef, args.contract)
      if (flags.path !== undefined && statSync(path.resolve(this.workDir, flags.path), {throwIfNoEntry: false})?.isFile()) throw new InvalidInputError(`--path ${flags.path} is a file; the work tree needs a new or empty folder`, {flag: 'path'}, 'name a folder that does not exist yet, or leave out --path')
      return openAttempt(store, c.ws, {contract: args.contract, lane: c.lane, mainRef: c.mainRef, worktreeRoot: c.worktreeRoot, ...(flags.path ? {path: flags.path} : {}), ...(flags.hypothesis ? {hypothesis: flags.hypothesis} : {}), ...(flags.ordinal ? {ordinal: flags.ordinal} : {}), ...(flags.reason ? {reason: flags.reason} : {})})
    })
    if (!this.jsonEnabled()) {
      this.log(`${res.created ? 'opened' : 'found'} attempt ${res.id} (#${res.ordinal} of ${res.contract.name}) on ${res.branch}`)
      this.log(`edit ${res.contract.editable_scope.join(', ')} in ${res.dir}`)
      this.log(`then: exp attempt eval ${res.id}`)
    }
    return {id: res.id, branch: res.branch, path: res.dir, base: res.base, ordinal: res.ordinal, created: res.created}
  }
}
