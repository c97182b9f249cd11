import {UsageError} from '../../errors/index.js'
import type {Interfaces} from '../../vendor/oclif.js'
import {reportExpError} from '../report-error.js'
import {nearest} from '../../errors/nearest.js'
import {clipped} from '../../errors/shown.js'

type Options = {id: string; argv?: string[]; config: Interfaces.Config}

/**
 * oclif's `command_not_found` hook: the words of a command line that name no command.
 *
 * oclif takes the words after a command that has no arguments as more of the command's name
 * (`exp lanes extra` looks for `lanes extra`), and reported "command lanes:extra not found"
 * in its own format. The longest run of words that names a command is run with the rest as
 * its arguments, so its parser names the one too many in exp's format (exit 2). A flag
 * before the command (`exp --json ledger`) is said to go after it; words that begin no
 * command at all are an unknown command, with the nearest one as a hint.
 */
export default async function commandNotFound(opts: Options): Promise<unknown> {
  const {id, argv = [], config} = opts
  const words = id.split(':')
  const cmd = longestCommand(config, words.slice(0, -1))
  if (cmd) return config.runCommand(cmd, [...words.slice(cmd.split(':').length), ...argv])
  const typed = words.join(' ')
  // `exp -C` alone: bin/run.js moves `-C DIR` behind the command, and there is none
  if (typed === '-C' || typed.startsWith('--cwd')) {
    reportExpError(new UsageError(`${typed} needs a folder and a command after it`, 'e.g. `exp -C ../other-clone ledger` (like git -C); `exp help` lists every command'), {json: argv.includes('--json'), debug: argv.includes('--debug')})
    return undefined
  }
  // `exp --json ledger`: a flag before the command (only -C may come first, as in git)
  if (typed.startsWith('-')) {
    const rest = argv.filter(a => !a.startsWith('-'))
    const named = rest.length ? longestCommand(config, rest) : undefined
    const example = named ? `exp ${[named.replaceAll(':', ' '), ...argv.slice(named.split(':').length), typed].join(' ')}` : `exp ledger ${typed}`
    reportExpError(new UsageError(`${typed} comes before the command: flags go after it`, `e.g. \`${example}\` (only -C DIR may come first, as in git); \`exp help\` lists every command`), {json: argv.includes('--json') || typed === '--json', debug: argv.includes('--debug')})
    return undefined
  }
  const near = nearest(
    typed,
    config.commandIDs.map(c => c.replaceAll(':', ' ')),
  )
  const hint = `${near ? `did you mean \`exp ${near}\`? ` : ''}\`exp help\` lists every command`
  reportExpError(new UsageError(`unknown command: ${clipped(typed)}`, hint), {json: argv.includes('--json'), debug: argv.includes('--debug')})
  return undefined
}

/** The longest run of leading words that names a command (`attempt list`), as its id. */
function longestCommand(config: Interfaces.Config, words: readonly string[]): string | undefined {
  for (let n = words.length; n > 0; n--) {
    const id = words.slice(0, n).join(':')
    if (config.findCommand(id)) return id
  }
  return undefined
}
