import {Help} from '../vendor/oclif.js'

type Loadable = Parameters<Help['formatCommand']>[0] & {jsonOutput?: string}

/**
 * oclif's help, plus a JSON OUTPUT section: what `--json` prints (the command's static
 * `jsonOutput`, see src/cli/base.ts), so a script author reads the shape where they read the flag.
 */
export default class ExpHelp extends Help {
  protected formatCommand(command: Loadable): string {
    const text = super.formatCommand(command)
    if (!command.jsonOutput) return text
    return `${text.trimEnd()}\n\n${this.section('JSON OUTPUT', this.wrap(command.jsonOutput))}`
  }
}
