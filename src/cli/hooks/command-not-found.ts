import {UsageError} from '../../errors/index.js'
import type {Interfaces} from '../../vendor/oclif.js'
import {reportExpError} from '../report-error.js'
import {nearest} from '../usage-errors.js'

type Options = {id: string; argv?: string[]; config: Interfaces.Config}

/**
 * oclif's `command_not_found` hook: the words of a command line that name no command.
 *
 * oclif takes the words after a command that has no arguments as more of the command's name
 * (`exp lanes extra` looks for `lanes extra`), and reported "command lanes:extra not found"
 * in its own format. The longest run of words that names a command is run with the rest as
 * its arguments, so its parser names the one too many in exp's format (exit 2). Words that
 * begin no command at all are an unknown command, with the nearest one as a hint.
 */
export default async function commandNotFound(opts: Options): Promise<unknown> {
  const {id, argv = [], config} = opts
  const words = id.split(':')
  for (let n = words.length - 1; n > 0; n--) {
    const cmd = words.slice(0, n).join(':')
    if (config.findCommand(cmd)) return config.runCommand(cmd, [...words.slice(n), ...argv])
  }
  const typed = words.join(' ')
  const near = nearest(
    typed,
    config.commandIDs.map(c => c.replaceAll(':', ' ')),
  )
  const hint = `${near ? `did you mean \`exp ${near}\`? ` : ''}\`exp help\` lists every command`
  reportExpError(new UsageError(`unknown command: ${typed}`, hint), {json: argv.includes('--json'), debug: argv.includes('--debug')})
  return undefined
}
