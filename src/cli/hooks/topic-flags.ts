import type {Interfaces} from '../../vendor/oclif.js'
import {badProcessArgument} from '../argv-utf8.js'

type Options = {id?: string; argv?: string[]; config: Interfaces.Config}
type Context = {exit(code?: number): never}

/** What a topic (or any command) takes before oclif shows its help: -C DIR, --debug. */
const GLOBAL = new Set(['--debug'])
const HELP = new Set(['--help', '-h'])

/**
 * oclif's `init` hook, for a topic given flags (`exp attempt --bogus`, `exp ci --json`): oclif
 * prints the topic's help on stdout and exits 0 whatever the flags, so a script's `--json`
 * got help text and a typo no error. A topic is no command: a flag other than the global ones
 * is a usage error in exp's format (exit 2, `{"error": …}` with --json) that names the
 * topic's commands; `--help` and -C still show the help.
 */
export default async function topicFlags(this: Context, opts: Options): Promise<void> {
  const {id, argv = [], config} = opts
  // (and, before any command, an argument that is not UTF-8: node made it U+FFFD, and a
  // command would have stored that in its place)
  const bad = badProcessArgument()
  if (bad) {
    const {UsageError, reportExpError} = await errorsModules()
    const what = bad.flag && takesValue(config, id, bad.flag) ? `the value of ${bad.flag}` : `argument ${bad.index + 1}`
    reportExpError(new UsageError(`${what} is not valid UTF-8: ${bad.shown}`, 'exp takes text as UTF-8 and never stores a byte it cannot read as U+FFFD; give the text in UTF-8 (iconv -t UTF-8), or a file with --artifact for bytes'), {json: process.argv.includes('--json'), debug: process.argv.includes('--debug')})
    this.exit(2)
  }
  if (!id || config.findCommand(id) || !config.findTopic(id)) return
  if (argv.some(a => HELP.has(a))) return
  const flags: string[] = []
  const words: string[] = []
  let cwd: string | undefined
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    if (a === '-C' || a === '--cwd') cwd = argv[++i] ?? ''
    else if (a.startsWith('--cwd=')) cwd = a.slice(6)
    else if (GLOBAL.has(a)) continue
    else if (a.startsWith('-')) flags.push(a)
    else words.push(a)
  }
  // `exp ci -C DIR init`: oclif takes it as the topic with flags and shows its help (exit 0,
  // nothing done: a CI step that lints passed having linted nothing); -C goes before the topic
  if (cwd !== undefined && words.length) {
    const topic = id.replaceAll(':', ' ')
    const {UsageError, reportExpError} = await errorsModules()
    reportExpError(new UsageError(`-C goes before the topic: \`exp ${topic} -C ${cwd} ${words.join(' ')}\` runs nothing`, `write \`exp -C ${cwd || 'DIR'} ${topic} ${words.join(' ')}\``), {json: argv.includes('--json'), debug: argv.includes('--debug')})
    this.exit(2)
  }
  if (!flags.length) return
  const topic = id.replaceAll(':', ' ')
  const commands = config.commands.filter(c => (c.id.startsWith(`${id}:`) || c.id.startsWith(`${id} `)) && !c.hidden).map(c => `exp ${c.id.replaceAll(':', ' ')}`).sort()
  const example = `${commands[0] ?? `exp ${topic} COMMAND`} ${flags.includes('--json') ? '--json' : ''}`.trim()
  const unknown = flags.filter(f => f !== '--json')
  const {UsageError, reportExpError} = await errorsModules()
  const message = unknown.length ? `unknown flag${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')} (\`exp ${topic}\` is a topic, not a command)` : `\`exp ${topic}\` is a topic, not a command: ${flags.join(' ')} goes after one of its commands`
  reportExpError(new UsageError(message, `its commands: ${commands.join(', ')}; e.g. \`${example}\`; \`exp ${topic} --help\` says what each does`), {json: argv.includes('--json'), debug: argv.includes('--debug')})
  this.exit(2)
}

/**
 * What an error report needs, loaded only when there is one: this hook runs before every
 * command, and its imports at the top cost every `exp append` ~25 ms.
 */
async function errorsModules() {
  const [{UsageError}, {reportExpError}] = await Promise.all([import('../../errors/index.js'), import('../report-error.js')])
  return {UsageError, reportExpError}
}

/** Whether `flag` (`--key`, `-C`) is one of the command's flags that take a value. */
function takesValue(config: Interfaces.Config, id: string | undefined, flag: string): boolean {
  if (flag === '-C' || flag === '--cwd') return true
  const flags = Object.entries((id ? config.findCommand(id)?.flags : undefined) ?? {})
  const found = flag.startsWith('--') ? flags.find(([name]) => name === flag.slice(2)) : flags.find(([, f]) => f.char === flag.slice(1))
  return found?.[1].type === 'option'
}
