import {Flags} from '../vendor/oclif.js'
import {ExpCommand} from '../cli/base.js'
import {withStore} from '../cli/context.js'
import {writeStdout} from '../cli/broken-pipe.js'
import {ExpError, InvalidInputError, NotFoundError} from '../errors/index.js'
import {summarize, recordPath, type ExpRecord} from '../records/index.js'
import {ambiguousPrefix, isIdPrefix} from '../records/prefix.js'
import {LANE_FAILURES, PROBLEM_CODES, type Ledger, type ReadProblem, type RecordStore} from '../store/index.js'
import {reportProblems} from '../cli/problems.js'
import {authorityOf} from '../cli/trust.js'
import {recordIdArg} from '../cli/record-id-arg.js'

export interface InspectResult {
  record: ExpRecord
  commit: string
  ref: string
  lane: string
  private: boolean
  path: string
  cites: {id: string; kind?: string; summary?: string; missing: boolean}[]
  cited_by: {id: string; kind: string; summary: string}[]
  duplicates: {ref: string; commit: string}[]
  /** for evidence (an evaluation, a decision, a verdict): whether it stands here, and why not (docs/trust.md) */
  stands?: {ok: true; level: string} | {ok: false; class: string; reason: string}
}

/** the kinds whose standing the trust checks decide */
const JUDGED = new Set(['evaluation', 'decision', 'verdict'])

export default class Inspect extends ExpCommand {
  static summary = 'Show one record: its body, commit and lane, what it cites and what cites it.'
  static description = 'Finds the record on any lane (public or private), prints the lane, lamport clock, commit and lane ref that hold it, its canonical path and digest, what it cites (with their summaries, or a note when this clone lacks them), every record that cites it, and its body as JSON. A unique prefix of the id is enough.'
  static enableJsonFlag = true
  static jsonOutput = '{record (the whole record: id, kind, lane, lamport, created_at, digest, cites, body), commit, ref, lane, private, path, cites (each cited id with its kind and summary, or missing), cited_by, duplicates, stands (an evaluation, decision or verdict: {ok, level} or {ok: false, class, reason})}; with --artifact the artifact\'s bytes, not JSON.'
  static examples = ['<%= config.bin %> inspect tr-3f9a0c1d2e3f405162738495', '<%= config.bin %> inspect dc-0a1b2c3d4e5f60718293a4b5 --json', '<%= config.bin %> inspect nt-0a1b2c3d4e5f60718293a4b5 --artifact run.log > run.log']
  static args = {id: recordIdArg('record id (e.g. tr-…, kn-…, pr-…)')}
  static flags = {artifact: Flags.string({description: 'print the content of this artifact of the record (checked against its digest) instead'})}

  async run(): Promise<InspectResult | undefined> {
    const {args, flags} = await this.parse(Inspect)
    if (!args.id.trim()) throw new InvalidInputError('the record id is empty', {arg: 'id'}, 'copy an id from `exp ledger` (e.g. tr-…, kn-…, pr-…)')
    if (flags.artifact !== undefined) {
      const bytes = await withStore(this.workDir, async store => store.readArtifact(args.id, flags.artifact!))
      writeStdout(bytes)
      return undefined
    }
    const res = await withStore(this.workDir, async store => {
      const ledger = await store.ledger()
      const shown = async (id: string) => {
        const r = await inspectOf(store, ledger, id)
        // evidence that does not stand is ignored by every view: inspect says so, and why
        if (JUDGED.has(r.record.kind)) r.stands = (await authorityOf(store, this.workDir, {ledger, quiet: true})).standing(r.record.id)
        return {...r, problems: ledger.problems}
      }
      const e = ledger.get(args.id)
      if (!e) {
        // a prefix has at least 4 hex digits, like git's shortest abbreviation: `pr-` alone names no record
        const near = isIdPrefix(args.id) ? ledger.entries.filter(x => x.id.startsWith(args.id)).map(x => x.id) : []
        if (near.length === 1) return shown(near[0]!)
        // (the words byPrefix uses for every other command: not "unknown")
        if (near.length > 1) throw ambiguousPrefix('record id', args.id, near)
        // a record the read skipped (damaged object, failed checks) is not unknown: say why it is not shown
        const skipped = ledger.problems.find(p => p.id === args.id)
        if (skipped) throw notShown(args.id, skipped)
        // a lane that could not be read may hold it: not "unknown", but not shown either
        const unread = ledger.problems.filter(p => LANE_FAILURES.has(p.code))
        if (unread.length) throw onUnreadLane(args.id, unread)
        throw new NotFoundError('record id', args.id, `list ids with \`exp ledger\`${/^[a-z]{2}-[0-9a-f]{0,3}$/.test(args.id) ? ' (a prefix needs at least 4 hex digits after the dash, as git\'s abbreviations do)' : ''}`)
      }
      return shown(args.id)
    })
    const problems = res.problems
    delete (res as {problems?: unknown}).problems
    if (!this.jsonEnabled()) {
      const r = res.record
      this.log(`${r.kind} ${r.id}  ${summarize(r)}`)
      this.log(`lane ${res.lane}${res.private ? ' (private)' : ''}  lamport ${r.lamport}  created ${r.created_at}`)
      this.log(`commit ${res.commit} on ${res.ref}`)
      this.log(`path ${res.path}  digest ${r.digest}`)
      if (res.stands) this.log(res.stands.ok ? `stands: yes (${res.stands.level})` : `stands: NO, ${res.stands.class}: ${res.stands.reason} (every view ignores it; docs/trust.md)`)
      for (const a of r.artifacts ?? []) this.log(`artifact ${a.name}  ${a.size} bytes  ${a.digest}  (${a.path}; \`exp inspect ${r.id} --artifact ${a.name}\`)`)
      this.log(`cites: ${res.cites.length ? '' : '(nothing)'}`)
      for (const c of res.cites) this.log(`  ${c.id}${c.missing ? '  (not in this clone)' : `  ${c.kind}: ${c.summary}`}`)
      this.log(`cited by: ${res.cited_by.length ? '' : '(nothing)'}`)
      for (const c of res.cited_by) this.log(`  ${c.id}  ${c.kind}: ${c.summary}`)
      this.log('body:')
      // (bidirectional formatting characters are escaped by log, src/cli/plain.ts)
      this.log(JSON.stringify(r.body, null, 2))
    }
    // the record is shown; lanes that could not be read are said, and set the status
    // (and a copy of this record with other content on another lane: the one shown is the first in ledger order)
    reportProblems(problems.filter(p => LANE_FAILURES.has(p.code) || (p.code === 'duplicate-id' && p.id === res.record.id)))
    return res
  }
}

function onUnreadLane(id: string, lanes: readonly ReadProblem[]): ExpError {
  const refs = lanes.map(p => p.ref)
  return new ExpError('E_INTEGRITY', `record ${id} is not on the lanes that could be read; ${refs.length} lane(s) could not be read and may hold it: ${refs.join(', ')}`, {
    data: {id, lanes: refs},
    hint: 'run `exp fsck` for details and what to do (`exp sync` fetches a lane again); `exp ledger` lists the ids of the lanes that read',
  })
}

function notShown(id: string, p: ReadProblem): ExpError {
  const where = [p.ref, p.commit?.slice(0, 12), p.path].filter(Boolean).join(' ')
  return new ExpError('E_CORRUPT', `record ${id} is in this clone (${where}) but is not shown: ${p.message}`, {
    data: {id, code: p.code, ref: p.ref, commit: p.commit, path: p.path},
    hint: `${p.hint ?? PROBLEM_CODES[p.code as keyof typeof PROBLEM_CODES] ?? 'see `exp fsck`'}; \`exp fsck\` lists every problem`,
  })
}

async function inspectOf(store: RecordStore, ledger: Ledger, id: string): Promise<InspectResult> {
  const e = ledger.get(id)!
  const record = ledger.load(e)
  // (the commit shown is checked against history: a ledger read from the cache names it by what the cache says)
  return {
    record,
    commit: await store.holdingCommit(e),
    ref: e.ref,
    lane: e.lane,
    private: e.private,
    path: recordPath(e.kind, e.id),
    cites: record.cites.map(c => {
      const t = ledger.get(c)
      return t ? {id: c, kind: t.kind, summary: summarize(ledger.load(t)), missing: false} : {id: c, missing: true}
    }),
    cited_by: ledger.citedBy(id).map(x => ({id: x.id, kind: x.kind, summary: summarize(ledger.load(x))})),
    duplicates: await Promise.all(ledger.duplicates.filter(d => d.id === id).map(async d => ({ref: d.ref, commit: await store.holdingCommit(d)}))),
  }
}
