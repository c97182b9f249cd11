import {existsSync, statSync} from 'node:fs'
import path from 'node:path'
import {Command, Flags, type Interfaces} from '../vendor/oclif.js'
import {isExpError, ExpError, NotFoundError, UsageError} from '../errors/index.js'
import {discoverRepo, validateLane} from '../store/index.js'
import {projectRoot} from './folders.js'
import {isClosedOutput, OutputWriteError, quietOnClosedOutput, stdoutFailed, writeStdout} from './broken-pipe.js'
import {usageErrorOf} from './usage-errors.js'
import {isRecordIdArg} from './record-id-arg.js'
import {clipped} from '../errors/shown.js'
import {plainText} from './plain.js'
import {reportExpError} from './report-error.js'
import {noteOnInterrupt} from '../evals/evaluator/interrupt.js'
import {shownFrom} from '../paths.js'
import {format} from 'node:util'
import {DEVICE_CODES, errnoWords} from '../errors/errno.js'

export type BaseFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof ExpCommand)['baseFlags'] & T['flags']>

/** The flags that name a lane, in any command. */
const LANE_FLAGS = ['lane', 'agent-id']

/** What an interrupted command says: nothing written is lost, and the same command goes on. */
const INTERRUPTED = 'interrupted: what was written stays (a record is written whole or not at all); run the same command again to go on, `exp fsck` to check'

/**
 * Base of every exp command: global flags, and the one place where errors become a message,
 * a hint and an exit status (no stack trace unless --debug).
 */
export abstract class ExpCommand extends Command {
  static baseFlags = {
    debug: Flags.boolean({description: 'print stack traces of errors', helpGroup: 'GLOBAL'}),
    cwd: Flags.string({char: 'C', description: 'run as if exp was started in this folder', helpGroup: 'GLOBAL'}),
  }

  /**
   * What --json prints: the shape of the result, in a sentence or two. Shown in --help as JSON
   * OUTPUT (src/cli/help.ts) and in docs/commands.md; every command with --json has one
   * (test/cli/help.test.ts).
   */
  static jsonOutput?: string

  protected debugMode = false
  protected workDir = process.cwd()

  public async init(): Promise<void> {
    quietOnClosedOutput()
    noteOnInterrupt(INTERRUPTED)
    await super.init()
    const argv = this.argv
    this.debugMode = argv.includes('--debug') || process.env.EXP_DEBUG === '1'
    const i = argv.findIndex(a => a === '-C' || a === '--cwd')
    let dir: string | undefined
    if (i >= 0 && argv[i + 1]) dir = argv[i + 1]!
    const eq = argv.find(a => a.startsWith('--cwd='))
    if (eq) dir = eq.slice('--cwd='.length)
    if (dir !== undefined) {
      this.workDir = path.resolve(process.cwd(), dir)
      if (!existsSync(this.workDir) || !statSync(this.workDir).isDirectory()) throw new NotFoundError('folder', dir, '-C takes an existing folder (like git -C)')
    }
  }

  /**
   * oclif fills a positional argument left out from stdin when stdin is not a terminal (read
   * within 10 ms, so it depends on timing): `echo x | exp skills lint` would lint a folder
   * named x, and `exp append note --batch < file` lost its input to the parser. exp reads stdin
   * only where a command says so (`-`), so no argument is ever taken from it.
   */
  protected async parse<F extends Interfaces.OutputFlags<any>, B extends Interfaces.OutputFlags<any>, A extends Interfaces.OutputArgs<any>>(options?: Interfaces.Input<F, B, A>, argv?: string[]): Promise<Interfaces.ParserOutput<F, B, A>> {
    const o = options ?? (this.ctor as unknown as Interfaces.Input<F, B, A>)
    const args = Object.fromEntries(Object.entries(o.args ?? {}).map(([k, a]) => [k, {...a, ignoreStdin: true}]))
    // named one by one: a spread of the command class copies only its own statics, and
    // baseFlags (-C, --debug) and strict are inherited
    const parsed = await super.parse({...o, flags: o.flags, baseFlags: o.baseFlags, enableJsonFlag: o.enableJsonFlag, strict: o.strict, args} as Interfaces.Input<F, B, A>, argv)
    // an empty word names nothing: `exp skills lint ''` linted the current folder, `exp research
    // ''` looked for a contract named `.yaml`, `exp contract lint ''` checked every contract
    // (record ids are resolved by records/prefix.ts, whose error says which kind of id and
    // where to copy one)
    const words = parsed.raw.filter(r => r.type === 'arg')
    const defs = (o.args ?? {}) as Record<string, {required?: boolean}>
    const defOf = (r: (typeof words)[number]) => {
      const name = (r as {arg?: string}).arg
      return name ? defs[name] : undefined
    }
    const at = words.findIndex(r => r.input === '' && !isRecordIdArg(defOf(r)))
    if (at >= 0) {
      const name = (words[at] as {arg?: string}).arg
      const def = defOf(words[at]!)
      throw new UsageError(`${name ? name.toUpperCase() : `argument ${at + 1}`} is empty: an empty word names nothing`, `${def && !def.required ? 'leave it out for its default, or give one' : 'give one'}; \`exp ${(this.id ?? '').replaceAll(':', ' ')} --help\` lists its arguments`)
    }
    // every --lane (and frontier's --agent-id, its alias) is checked here, once, as a lane name:
    // a view echoed `--lane ../x` as an agent name where a write refused it
    const flags = parsed.flags as Record<string, unknown>
    for (const name of LANE_FLAGS) for (const v of [flags[name]].flat()) if (typeof v === 'string') validateLane(v, `lane name (${this.typedFlag(o, name, argv ?? this.argv)})`)
    // every number flag is an integer flag: one beyond 2^53 - 1 was silently stored rounded
    // (--seed 99999999999999999999 as 1e20), which no later run can repeat
    for (const [name, v] of Object.entries(flags)) {
      for (const n of [v].flat()) {
        if (typeof n !== 'number' || Number.isSafeInteger(n)) continue
        const typed = parsed.raw.find(r => r.type === 'flag' && r.flag === name)?.input ?? String(n)
        // (the flag's own bounds where it has them: --repeat is at least 1)
        const def = (o.flags as Record<string, {min?: number; max?: number}> | undefined)?.[name]
        const min = def?.min ?? -Number.MAX_SAFE_INTEGER
        const max = def?.max ?? Number.MAX_SAFE_INTEGER
        throw new UsageError(`--${name}: ${clipped(typed)} is out of range: a whole number from ${min} to ${max}${max === Number.MAX_SAFE_INTEGER ? ' (2^53 - 1)' : ''} is expected`, `\`exp ${(this.id ?? '').replaceAll(':', ' ')} --help\` lists its arguments and flags`)
      }
    }
    return parsed
  }

  /** `--name`, or the alias of it the command line used (frontier's --agent-id is also --lane). */
  private typedFlag(o: {flags?: unknown}, name: string, argv: readonly string[]): string {
    const aliases = (o.flags as Record<string, {aliases?: string[]}> | undefined)?.[name]?.aliases ?? []
    for (const a of argv) {
      if (a === '--') break
      for (const n of [name, ...aliases]) if (a === `--${n}` || a.startsWith(`--${n}=`)) return `--${n}`
    }
    return `--${name}`
  }

  /**
   * The folder defaults such as skills/ and scenarios/ are relative to: the repository the
   * command runs in (git rev-parse --show-toplevel, from -C or the current folder), or the
   * nearest folder below its top holding .research/ or `marker` (src/cli/folders.ts).
   */
  protected repoRoot(marker?: string): string {
    let top = this.workDir
    try {
      top = discoverRepo(this.workDir).workDir ?? this.workDir
    } catch {
      // outside a repository: the folder itself
    }
    return projectRoot(this.workDir, top, marker)
  }

  /**
   * --json output. oclif colours it with one regular expression over the whole text, which
   * overflows the stack on a record of a few MB: output that is not for a terminal, or large,
   * is written as plain JSON.
   */
  logJson(json: unknown): void {
    if (process.stdout.isTTY) {
      const text = JSON.stringify(json, null, 2)
      if (text.length <= 256 * 1024) return writeStdout(() => super.logJson(json))
      writeStdout(`${text}\n`)
      return
    }
    writeStdout(`${JSON.stringify(json, null, 2)}\n`)
  }

  /** Print a line to stderr (progress, warnings): stdout stays for results. */
  protected note(msg: string): void {
    process.stderr.write(`${plainText(msg)}\n`)
  }

  /** Print a result line to stdout, as plain text (src/cli/plain.ts). */
  log(message = '', ...args: unknown[]): void {
    writeStdout(() => super.log(plainText(format(message, ...args))))
  }

  protected async catch(err: Error & {exitCode?: number; oclif?: {exit?: number}}): Promise<unknown> {
    // the reader of stdout went away (`| head`): stop quietly, like git (src/cli/broken-pipe.ts)
    if (isClosedOutput(err)) return
    // (nothing more goes to a stdout that failed: not even the JSON of the error)
    const json = this.argv.includes('--json') && !stdoutFailed()
    if (err instanceof OutputWriteError) return reportExpError(err, {json: false, debug: this.debugMode})
    if (isExpError(err)) return reportExpError(err, {json, debug: this.debugMode})
    // oclif's errors about the command line, in exp's format (src/cli/usage-errors.ts)
    const usage = usageErrorOf(err, {id: this.id ?? '', flags: Object.keys({...this.ctor.flags, ...this.ctor.baseFlags})})
    if (usage) return this.catch(usage)
    if (err.oclif?.exit !== undefined || (err as {code?: string}).code?.startsWith?.('EEXIT')) return super.catch(err)
    // a file or folder that is not there is the user's to fix, not a bug to report
    const missing = missingPath(err)
    if (missing) return this.catch(new NotFoundError('file or folder', missing, 'check the path (relative paths are from the current folder, or from -C)'))
    const inTheWay = (err as {code?: string}).code === 'EEXIST' ? shownPath((err as {path?: string}).path) : undefined
    if (inTheWay) return this.catch(new ExpError('E_USAGE', `a file is in the way: ${inTheWay} (a folder is needed there)`, {hint: 'move or remove it, then run the command again'}))
    // a full disk, a failing or read-only device: what the user must fix, named (no record is half written)
    const device = deviceFailure(err)
    if (device) return this.catch(device)
    const name = (err as {code?: string}).code
    if (json) writeStdout(`${JSON.stringify({error: {code: 'E_INTERNAL', message: err.message}}, null, 2)}\n`, {quiet: true})
    process.stderr.write(`error: ${plainText(err.message)}\n`)
    if (this.debugMode) process.stderr.write(`${err.stack}\n`)
    else process.stderr.write(`hint: this is unexpected${name ? ` (${name})` : ''}; run again with --debug for the stack trace and report it\n`)
    process.exitCode = 1
  }
}

function deviceFailure(err: Error & {code?: string; path?: string}): ExpError | undefined {
  if (!err.code || !DEVICE_CODES.has(err.code)) return undefined
  // a file of git's own folder (a lock, a temporary object: names no one chose) is the repository's
  const git = typeof err.path === 'string' ? /^(.*?[\\/]\.git)(?:[\\/]|$)/.exec(err.path)?.[1] : undefined
  const at = git ? `in ${shownPath(git)}` : shownPath(err.path)
  const hint =
    err.code === 'EROFS'
      ? 'the file system is mounted read-only: work in a clone on a writable one (reads work here), or remount it read-write; nothing was written'
      : 'make room on the device (or fix it), then run the command again: what was written before stays, and a record is written whole or not at all'
  return new ExpError('E_WRITE', `cannot write ${at ?? 'to the disk'}: ${errnoWords(err.code)} (${err.code})`, {data: {errno: err.code, ...(err.path ? {file: err.path} : {})}, hint, cause: err})
}

function missingPath(err: Error & {code?: string; path?: string}): string | undefined {
  return err.code === 'ENOENT' || err.code === 'ENOTDIR' ? shownPath(err.path) : undefined
}

function shownPath(p: unknown): string | undefined {
  if (typeof p !== 'string') return undefined
  return shownFrom(process.cwd(), p)
}

export {ExpError}
