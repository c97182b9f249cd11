import {Flags} from '../vendor/oclif.js'
import {ExpCommand} from '../cli/base.js'
import {withStore} from '../cli/context.js'
import {authorityOf} from '../cli/trust.js'
import {table} from '../cli/table.js'
import {hypotheses, STATUSES, type HypothesisView} from '../projections/index.js'

export default class Hypotheses extends ExpCommand {
  static summary = 'List hypotheses with their status, derived from the records (never stored).'
  static description = `Statuses: ${STATUSES.join(', ')}. Each is derived from the public lanes in ledger order (see docs/frontier.md for the rules); --json adds the records that justify it and the sequence of statuses it went through.`
  static enableJsonFlag = true
  static jsonOutput = 'an array of {id, lane, lamport, status, evidence_status, because, evidence (record ids), proposals, contenders, history (the statuses it went through)}.'
  static examples = ['<%= config.bin %> hypotheses', '<%= config.bin %> hypotheses --status supported --json']
  static flags = {
    status: Flags.string({description: 'only hypotheses with this status', options: [...STATUSES]}),
  }

  async run(): Promise<HypothesisView[]> {
    const {flags} = await this.parse(Hypotheses)
    const list = await withStore(this.workDir, async store => {
      const authority = await authorityOf(store, this.workDir)
      const note = authority.ignoredNote()
      if (note) this.note(note)
      return hypotheses(authority.ledger, new Date(), {status: flags.status as HypothesisView['status'] | undefined, admit: authority.admit})
    })
    if (!this.jsonEnabled()) {
      const rows = list.map(h => [h.id, h.status, h.lane, h.evidence, h.claim ? `${h.claim.holder} until ${h.claim.expires_at}` : '', h.because.join(' ')])
      this.log(table(rows, ['ID', 'STATUS', 'LANE', 'EVIDENCE', 'CLAIMED BY', 'BECAUSE']) || '(no hypotheses)')
    }
    return list
  }
}
