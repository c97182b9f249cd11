import {Args, Flags} from '../vendor/oclif.js'
import {ExpCommand} from '../cli/base.js'
import ExpHelp from '../cli/help.js'

export default class HelpCommand extends ExpCommand {
  static summary = 'Show help for exp, a topic or a command.'
  static description = `The same text as --help and -h. \`git exp help COMMAND\` works too; \`git exp --help\` opens the git-exp(1) manual page installed with exp. The full reference of every command is docs/commands.md.`
  static examples = ['<%= config.bin %> help', '<%= config.bin %> help run', '<%= config.bin %> help skills lint', '<%= config.bin %> run --help']
  // a command id may have several words (skills lint)
  static strict = false
  static args = {command: Args.string({description: 'command (words separated by spaces)'})}
  static flags = {all: Flags.boolean({description: 'list every command, including the ones under topics'})}

  async run(): Promise<void> {
    const {argv, flags} = await this.parse(HelpCommand)
    // (`exp help help`: the words after `help` are ['help'], which oclif's help passes over)
    await new ExpHelp(this.config, {all: flags.all}).showHelp(argv.length === 1 && argv[0] === 'help' ? ['help', 'help'] : (argv as string[]))
  }
}
