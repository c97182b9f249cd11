import {Flags} from '../vendor/oclif.js'
import {ExpCommand} from '../cli/base.js'
import {withStore} from '../cli/context.js'
import {table} from '../cli/table.js'
import {writeJsonRecords} from '../cli/json-stream.js'
import {assertKind, summarize, type ExpRecord} from '../records/index.js'
import {InvalidInputError, NotFoundError} from '../errors/index.js'
import {reportProblems} from '../cli/problems.js'

export default class LedgerCmd extends ExpCommand {
  static summary = 'List records of every lane in ledger order (lamport, lane, id).'
  static description = `Rebuilt from the lane refs alone (through the derived cache under .git/exp, which is refreshed incrementally and checked against the records' digests). Records that cannot be read are skipped with a warning on stderr; --strict makes that an error. A lane that cannot be read at all is named on stderr with what to do, the other lanes are listed, and the command exits 5.
With --json the records are written as a JSON array, one record per line, as they are stored (streamed: a ledger of any size is never one string in memory).`
  static enableJsonFlag = true
  static jsonOutput = 'a JSON array of the records as stored (id, kind, lane, lamport, created_at, schema, digest, cites, body), one record per line, streamed.'
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

  async run(): Promise<ExpRecord[] | undefined> {
    const {flags} = await this.parse(LedgerCmd)
    const kinds = (flags.kind ?? []).map(assertKind)
    if (flags.cites !== undefined && !/^[a-z]{2}-[0-9a-f]{24}$/.test(flags.cites)) throw new InvalidInputError(`--cites ${JSON.stringify(flags.cites)} is not a record id (two letters, a dash, 24 hex digits)`, {flag: 'cites'}, 'copy the id from `exp ledger`')
    const json = this.jsonEnabled()
    const problems = await withStore(this.workDir, async store => {
      const ledger = await store.ledger()
      // like `git log nosuch`: a lane or a record that does not exist is a mistake, not an empty list
      for (const l of flags.lane ?? []) if (!ledger.entries.some(e => e.lane === l) && !ledger.problems.some(p => p.ref.endsWith(`/${l}`))) throw new NotFoundError('lane', l, '`exp lanes` lists the lanes; `exp sync` fetches the lanes of others')
      if (flags.cites !== undefined && !ledger.has(flags.cites)) throw new NotFoundError('record id', `${flags.cites} (given with --cites)`, 'copy the id from `exp ledger`; `exp sync` fetches the records of others')
      let entries = ledger.select({kinds, lanes: flags.lane, cites: flags.cites, since: flags.since, includePrivate: !flags['no-private']})
      if (flags.limit !== undefined) entries = entries.slice(Math.max(0, entries.length - flags.limit))
      if (json) await writeJsonRecords(process.stdout, entries, es => ledger.recordBytes(es, {transient: true}))
      else {
        const rows = entries.map(e => ledger.load(e))
        this.log(table(rows.map(r => [r.lamport, r.lane, r.kind, r.id, summarize(r)]), ['LAMPORT', 'LANE', 'KIND', 'ID', 'SUMMARY']) || '(no records)')
      }
      return ledger.problems
    })
    reportProblems(problems, flags.strict)
    return undefined
  }
}
