import {Args, Flags} from '../vendor/oclif.js'
import path from 'node:path'
import {existsSync} from 'node:fs'
import {isKind, KINDS} from '../records/index.js'
import {ExpCommand} from '../cli/base.js'
import {ExpError, NotFoundError, UnknownKindError, UsageError} from '../errors/index.js'
import {readBounded} from '../cli/read-input.js'
import {laneOf, withStore} from '../cli/context.js'
import {appendFromText, checkCiteFlags} from '../store/input.js'

export default class Append extends ExpCommand {
  static summary = 'Validate a record body (YAML or JSON) and append it to a lane.'
  static description = `Each record becomes one commit on refs/research/lanes/<lane> (or refs/research/private/<lane> with --private). Prints the record id.
The input is the record body, or a draft {kind?, body, cites?, key?}. With --batch the input is JSON Lines, one record per line, all appended in one locked step (all or nothing).
Appending a record that already exists with the same content is a no-op; the same id with other content is a conflict.
A record file may be at most 1 MiB (git config exp.maxRecordBytes); larger content goes beside it with --artifact FILE: stored as its own blob in the lane, named in the record by path and SHA-256 digest (\`exp inspect ID --artifact NAME\` prints it). Input is read up to 8 times the record limit (a --batch: 256 times; an artifact: git config exp.maxArtifactBytes, 100 MiB), so an endless one (/dev/zero, \`yes |\`) is an error, not a hang.`

  static examples = [
    '<%= config.bin %> append note note.yaml',
    "echo '{\"text\":\"looks flaky\"}' | <%= config.bin %> append note -",
    '<%= config.bin %> append --batch records.jsonl --lane ci',
    '<%= config.bin %> append trace - --batch --private < traces.jsonl',
    '<%= config.bin %> append note note.yaml --artifact run.log',
  ]

  static jsonOutput = 'the appended record as {id, kind, digest, status: created|exists, lane, ref, lamport, commit}; with --batch an array of them, in input order.'

  static args = {
    kind: Args.string({description: 'record kind (manifest, trace, verification, evaluation, evidence, knowledge, hypothesis, recall, proposal, decision, claim, release, note); optional with --batch when each line names its kind'}),
    file: Args.string({description: 'file to read, or - for stdin', default: '-'}),
  }

  static flags = {
    lane: Flags.string({description: 'lane to append to (default: EXP_LANE, git config exp.lane, user@host)'}),
    private: Flags.boolean({description: 'append to the private lane (never pushed)'}),
    batch: Flags.boolean({description: 'read JSON Lines and append each line as its own record'}),
    cite: Flags.string({description: 'id this record cites (repeatable)', multiple: true}),
    key: Flags.string({description: 'explicit idempotency key (the id derives from it)'}),
    artifact: Flags.string({description: 'a file to store beside the record, named in it by path and digest (repeatable; for content over the record size limit)', multiple: true}),
    json: Flags.boolean({description: 'print the results as JSON'}),
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Append)
    let kind = args.kind
    let file = args.file
    // `exp append --batch FILE`: a single positional is the file when it is not a kind name
    if (flags.batch && kind && (kind === '-' || kind.includes('.') || kind.includes('/'))) {
      file = kind
      kind = undefined
    }
    // an unknown kind is said before any input is read: `exp append note.json` took the file
    // name for the kind and waited on stdin (or failed on it, "a record body must be a mapping")
    if (kind !== undefined && !isKind(kind)) throw new UnknownKindError(kind, Object.keys(KINDS), kind.includes('.') || kind.includes('/') || existsSync(path.resolve(this.workDir, kind)) ? `the kind comes first (exp append KIND ${kind}); ` : '')
    if (flags.artifact?.length && flags.batch) throw new UsageError('--artifact goes with one record, not with --batch', 'append the record with its artifacts on its own')
    const results = await withStore(this.workDir, async store => {
      // input is read up to a bound the record limit gives (YAML may be wordier than the
      // record's JSON): an endless input (/dev/zero, \`yes |\`) is an error, not a hang
      const limit = await store.maxRecordBytes()
      const max = flags.batch ? BATCH_FACTOR * limit : INPUT_FACTOR * limit
      const why = `${flags.batch ? BATCH_FACTOR : INPUT_FACTOR} times the record size limit, ${limit} bytes`
      const hint = flags.batch ? 'split the batch into several files, or raise the limit with `git config exp.maxRecordBytes SIZE`' : 'a record is small: put large content beside it with --artifact FILE, or raise the limit with `git config exp.maxRecordBytes SIZE`'
      const given = file!
      const bytes = await readBounded(given === '-' ? '-' : path.resolve(this.workDir, given), {shown: given === '-' ? '<stdin>' : given, max, why, hint}).catch(e => {
        if (e instanceof ExpError) throw e
        throw new NotFoundError('input file', given, `${(e as Error).message.split(',')[0]}: pass an existing file, or - to read stdin`)
      })
      const maxArtifact = await store.maxArtifactBytes()
      const artifacts = await Promise.all(
        (flags.artifact ?? []).map(async f => ({
          name: path.basename(f),
          content: await readBounded(path.resolve(this.workDir, f), {shown: f, max: maxArtifact, why: 'the artifact size limit', hint: 'raise the limit with `git config exp.maxArtifactBytes SIZE`'}).catch(e => {
            if (e instanceof ExpError) throw e
            throw new NotFoundError('file', f, `check the path given with --artifact (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`)
          }),
        })),
      )
      const lane = await laneOf(store, flags.lane)
      await checkCiteFlags(store, flags.cite ?? [])
      return appendFromText(store, bytes, {file: file === '-' ? '<stdin>' : file, kind, batch: flags.batch, lane, private: flags.private, cites: flags.cite, key: flags.key, artifacts})
    })
    if (flags.json) this.log(JSON.stringify(results.length === 1 && !flags.batch ? results[0] : results, null, 2))
    else for (const r of results) this.log(r.status === 'exists' ? `${r.id} (exists)` : r.id)
  }
}

/** A single record's input may be this many times the record size limit (comments, indentation, YAML's own form). */
const INPUT_FACTOR = 8
/** A --batch input may be this many records at the size limit (256 MiB at the default 1 MiB). */
const BATCH_FACTOR = 256
