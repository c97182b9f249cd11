import {Flags} from '../vendor/oclif.js'
import {ExpCommand} from '../cli/base.js'
import {withStore} from '../cli/context.js'
import {table} from '../cli/table.js'
import {assertKind, summarize, type ExpRecord} from '../records/index.js'
import {ExpError, InvalidInputError} from '../errors/index.js'
import {validateLane, type ReadProblem} from '../store/index.js'

export default class LedgerCmd extends ExpCommand {
  static summary = 'List records of every lane in ledger order (lamport, lane, id).'
  static description = 'Rebuilt from the lane refs alone (through the derived cache under .git/exp, which is refreshed incrementally). Records that cannot be read are skipped with a warning on stderr; --strict makes that an error.'
  static enableJsonFlag = true
  static examples = ['<%= config.bin %> ledger', '<%= config.bin %> ledger --kind decision --json', '<%= config.bin %> ledger --cites kn-0123456789abcdef01234567', '<%= config.bin %> ledger --lane alice --since 120']

  static flags = {
    kind: Flags.string({description: 'only this kind (repeatable)', multiple: true}),
    lane: Flags.string({description: 'only this lane (repeatable)', multiple: true}),
    cites: Flags.string({description: 'only records that cite this id'}),
    since: Flags.integer({description: 'only records with a lamport clock greater than this', min: 0}),
    limit: Flags.integer({description: 'show at most this many (the last N in ledger order)', min: 0}),
    'no-private': Flags.boolean({description: 'leave out private lanes'}),
    strict: Flags.boolean({description: 'exit non-zero when any record could not be read'}),
  }

  async run(): Promise<ExpRecord[]> {
    const {flags} = await this.parse(LedgerCmd)
    const kinds = (flags.kind ?? []).map(assertKind)
    for (const l of flags.lane ?? []) validateLane(l, 'lane name (--lane)')
    if (flags.cites !== undefined && !/^[a-z]{2}-[0-9a-f]{24}$/.test(flags.cites)) throw new InvalidInputError(`--cites ${JSON.stringify(flags.cites)} is not a record id (two letters, a dash, 24 hex digits)`, {flag: 'cites'}, 'copy the id from `exp ledger`')
    const {records, problems} = await withStore(this.workDir, async store => {
      const ledger = await store.ledger()
      let entries = ledger.select({kinds, lanes: flags.lane, cites: flags.cites, since: flags.since, includePrivate: !flags['no-private']})
      if (flags.limit !== undefined) entries = entries.slice(Math.max(0, entries.length - flags.limit))
      return {records: entries.map(e => ledger.load(e)), problems: ledger.problems}
    })
    warnProblems(this, problems)
    if (!this.jsonEnabled()) {
      this.log(table(records.map(r => [r.lamport, r.lane, r.kind, r.id, summarize(r)]), ['LAMPORT', 'LANE', 'KIND', 'ID', 'SUMMARY']) || '(no records)')
    }
    if (flags.strict && problems.length) throw new ExpError('E_CORRUPT', `${problems.length} record(s) could not be read`, {hint: 'run `exp fsck` for details'})
    return records
  }
}

export function warnProblems(cmd: {warn(s: string): unknown}, problems: readonly ReadProblem[]): void {
  for (const p of problems.slice(0, 20)) process.stderr.write(`warning: skipped ${p.ref}${p.commit ? ` ${p.commit.slice(0, 12)}` : ''}${p.path ? ` ${p.path}` : ''}: ${p.message}\n`)
  if (problems.length > 20) process.stderr.write(`warning: … and ${problems.length - 20} more (see \`exp fsck\`)\n`)
  void cmd
}
