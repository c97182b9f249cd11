import {Help} from '../vendor/oclif.js'
import {UsageError} from '../errors/index.js'
import {reportExpError} from './report-error.js'
import {nearest} from '../errors/nearest.js'
import {clipped} from '../errors/shown.js'

type Loadable = Parameters<Help['formatCommand']>[0] & {jsonOutput?: string}

/**
 * oclif's help, plus a JSON OUTPUT section: what `--json` prints (the command's static
 * `jsonOutput`, see src/cli/base.ts), so a script author reads the shape where they read the flag.
 */
export default class ExpHelp extends Help {
  /**
   * oclif's "Command ledgr not found." (`exp help ledgr`, `exp ledgr --help`) in exp's error
   * format, with the nearest command as a hint (exit 2; hooks/command-not-found.ts says the
   * same without --help).
   */
  async showHelp(argv: string[]): Promise<void> {
    // `exp help --help` (and `exp help help`, HelpCommand) ask about the help command itself;
    // oclif passes over the word `help` and printed the root help
    const words = argv.filter(a => !a.startsWith('-'))
    const help = this.config.findCommand('help')
    if (help && words.length > 0 && words.every(w => w === 'help') && (words.length > 1 || argv.length > words.length)) return this.showCommandHelp(help)
    try {
      await super.showHelp(argv)
    } catch (e) {
      const m = /^Command (.+) not found\.$/.exec((e as Error).message ?? '')
      if (!m) throw e
      const typed = m[1]!.replaceAll(':', ' ')
      const near = nearest(
        typed,
        this.config.commandIDs.map(c => c.replaceAll(':', ' ')),
      )
      reportExpError(new UsageError(`unknown command: ${clipped(typed)}`, `${near ? `did you mean \`exp help ${near}\`? ` : ''}\`exp help\` lists every command`), {json: false, debug: false})
    }
  }

  /**
   * A topic's help (`exp attempt`, `exp attempt --help`) ends with EXAMPLES, as a command's
   * does: the first example of each of its commands.
   */
  async showTopicHelp(topic: Parameters<Help['showTopicHelp']>[0]): Promise<void> {
    // (before oclif's help: its formatCommands rewrites the ids it lists, `attempt:list` to `attempt list`)
    const examples = this.config.commands
      .filter(c => (c.id.startsWith(`${topic.name}:`) || c.id.startsWith(`${topic.name} `)) && !c.hidden)
      .sort((a, b) => a.id.localeCompare(b.id))
      .flatMap(c => [c.examples ?? []].flat().slice(0, 1))
      .map(e => (typeof e === 'string' ? e : e.command))
      .map(e => `$ ${e.replaceAll('<%= config.bin %>', this.config.bin)}`)
    await super.showTopicHelp(topic)
    if (examples.length) this.log(`${this.section('EXAMPLES', examples.join('\n\n'))}\n`)
  }

  protected formatCommand(command: Loadable): string {
    const text = super.formatCommand(command)
    if (!command.jsonOutput) return text
    return `${text.trimEnd()}\n\n${this.section('JSON OUTPUT', this.wrap(command.jsonOutput))}`
  }
}
