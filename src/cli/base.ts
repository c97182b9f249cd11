import {Command, Flags, type Interfaces} from '../vendor/oclif.js'
import {isExpError, ExpError} from '../errors/index.js'

export type BaseFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof ExpCommand)['baseFlags'] & T['flags']>

/**
 * Base of every exp command: global flags, and the one place where errors become a message,
 * a hint and an exit status (no stack trace unless --debug).
 */
export abstract class ExpCommand extends Command {
  static baseFlags = {
    debug: Flags.boolean({description: 'print stack traces of errors', helpGroup: 'GLOBAL'}),
    cwd: Flags.string({char: 'C', description: 'run as if exp was started in this folder', helpGroup: 'GLOBAL'}),
  }

  protected debugMode = false
  protected workDir = process.cwd()

  public async init(): Promise<void> {
    await super.init()
    const argv = this.argv
    this.debugMode = argv.includes('--debug') || process.env.EXP_DEBUG === '1'
    const i = argv.findIndex(a => a === '-C' || a === '--cwd')
    if (i >= 0 && argv[i + 1]) this.workDir = argv[i + 1]!
    const eq = argv.find(a => a.startsWith('--cwd='))
    if (eq) this.workDir = eq.slice('--cwd='.length)
  }

  /**
   * --json output. oclif colours it with one regular expression over the whole text, which
   * overflows the stack on a record of a few MB: output that is not for a terminal, or large,
   * is written as plain JSON.
   */
  logJson(json: unknown): void {
    if (process.stdout.isTTY) {
      const text = JSON.stringify(json, null, 2)
      if (text.length <= 256 * 1024) return super.logJson(json)
      process.stdout.write(`${text}\n`)
      return
    }
    process.stdout.write(`${JSON.stringify(json, null, 2)}\n`)
  }

  /** Print a line to stderr (progress, warnings): stdout stays for results. */
  protected note(msg: string): void {
    process.stderr.write(`${msg}\n`)
  }

  protected async catch(err: Error & {exitCode?: number; oclif?: {exit?: number}}): Promise<unknown> {
    const json = this.argv.includes('--json')
    if (isExpError(err)) {
      if (json) process.stdout.write(`${JSON.stringify({error: err.toJSON()}, null, 2)}\n`)
      process.stderr.write(`error: ${err.message}\n`)
      if (err.hint) process.stderr.write(`hint: ${err.hint}\n`)
      if (this.debugMode && err.stack) process.stderr.write(`${err.stack}\n`)
      process.exitCode = err.exit
      return
    }
    // oclif's own parse/usage errors carry their exit code
    if (err.oclif?.exit !== undefined || (err as {code?: string}).code?.startsWith?.('EEXIT')) return super.catch(err)
    const name = (err as {code?: string}).code
    if (json) process.stdout.write(`${JSON.stringify({error: {code: 'E_INTERNAL', message: err.message}}, null, 2)}\n`)
    process.stderr.write(`error: ${err.message}\n`)
    if (this.debugMode) process.stderr.write(`${err.stack}\n`)
    else process.stderr.write(`hint: this is unexpected${name ? ` (${name})` : ''}; run again with --debug for the stack trace and report it\n`)
    process.exitCode = 1
  }
}

export {ExpError}
