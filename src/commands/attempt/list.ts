import path from 'node:path'
import {contractFiles} from '../../contracts/load.js'
import {NotFoundError} from '../../errors/index.js'
import {Flags} from '../../vendor/oclif.js'
import {ExpCommand} from '../../cli/base.js'
import {withStore} from '../../cli/context.js'
import {table} from '../../cli/table.js'
import {authorityOf} from '../../cli/trust.js'
import {attemptViews, type AttemptView} from '../../attempts/view.js'

export default class AttemptList extends ExpCommand {
  static summary = 'List the attempts of research contracts: lane, state, dev and held-out means, decision.'
  static description = 'States: open (not evaluated yet), evaluated, needs_retry (resume with `exp attempt eval ID`), accepted, rejected. Verdicts and decisions that do not stand (docs/trust.md: not what their observation and contract give) are left out, and a note says how many; `exp fsck` says why.'
  static enableJsonFlag = true
  static jsonOutput = 'an array of {id, contract, ordinal, lane, state, splits (dev and holdout: mean), decision}.'
  static examples = ['<%= config.bin %> attempt list', '<%= config.bin %> attempt list --contract tuning --json']
  static flags = {contract: Flags.string({description: 'only this contract'})}

  async run(): Promise<AttemptView[]> {
    const {flags} = await this.parse(AttemptList)
    const list = await withStore(this.workDir, async store => {
      // what does not stand is left out, and said (docs/trust.md)
      const authority = await authorityOf(store, this.workDir)
      const note = authority.ignoredNote()
      if (note) this.note(note)
      return attemptViews(authority.ledger, flags.contract, {admit: authority.admit})
    })
    // a contract with no attempt yet lists none; a name that is no contract at all is a typo
    if (flags.contract !== undefined && !list.length && !(await contractFiles(this.repoRoot())).some(f => path.basename(f).replace(/\.ya?ml$/, '') === flags.contract)) {
      const known = (await contractFiles(this.repoRoot())).map(f => path.basename(f).replace(/\.ya?ml$/, ''))
      throw new NotFoundError('contract', flags.contract, known.length ? `contracts here: ${known.join(', ')}` : 'list the contracts with `exp contract lint`')
    }
    if (!this.jsonEnabled()) {
      const rows = list.map(a => [a.id, a.contract, `#${a.ordinal}`, a.lane, a.state, a.splits.dev?.mean ?? '-', a.splits.holdout?.mean ?? '-', a.decision?.verdict ?? '-'])
      this.log(table(rows, ['ID', 'CONTRACT', '#', 'LANE', 'STATE', 'DEV', 'HOLDOUT', 'DECISION']) || '(no attempts)')
    }
    return list
  }
}
