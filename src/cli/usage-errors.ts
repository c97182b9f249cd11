import {stripVTControlCharacters} from 'node:util'
import {UsageError} from '../errors/index.js'
import {nearest} from '../errors/nearest.js'
import {clipped} from '../errors/shown.js'

interface OclifError extends Error {
  code?: string
  oclif?: {exit?: number}
  /** NonExistentFlagsError: the flags as typed */
  flags?: string[]
  /** RequiredArgsError: the arguments left out; UnexpectedArgsError: the words too many, as typed */
  args?: ({name: string; description?: string} | string)[]
}

/**
 * oclif's own errors about a command line (a flag that does not exist, a value out of range,
 * an argument too many or left out) as exp's usage error: one format for every error (`error:`
 * and `hint:` on stderr, `{"error": {code, message, hint}}` with --json) and one exit status,
 * 2, with or without --json (oclif exits 1 under --json).
 */
export function usageErrorOf(err: OclifError, command: {id: string; flags: readonly string[]}): UsageError | undefined {
  if (err.oclif?.exit === undefined || err.code?.startsWith('EEXIT')) return undefined
  const cmd = `exp ${command.id.replaceAll(':', ' ')}`
  let hint = `\`${cmd} --help\` lists its arguments and flags`
  const lines = stripVTControlCharacters(err.message).split('\n').map(l => l.trim()).filter(l => l && l !== 'See more help with --help' && !/^The following errors? occurred:$/.test(l))
  let message = lines.join('; ')
  const parsing = /^Parsing (--[\w-]+)$/.exec(lines[0] ?? '')
  if (parsing) message = `${parsing[1]}: ${lowerFirst(lines.slice(1).join('; '))}`
  else if (err.args?.length && /^Missing/.test(lines[0] ?? '')) message = `missing ${(err.args as {name: string; description?: string}[]).map(a => `${a.name.toUpperCase()}${a.description ? ` (${a.description})` : ''}`).join(', ')}`
  else if (err.args?.length && err.args.every(a => typeof a === 'string') && /^Unexpected arguments?:/.test(lines[0] ?? '')) message = `unexpected argument${err.args.length === 1 ? '' : 's'}: ${(err.args as string[]).map(shown).join(', ')}`
  else message = lowerFirst(message).replace(/^nonexistent flag(s?):/, 'unknown flag$1:').replace(/missing required flag ([\w-]+)/g, 'missing required flag --$1')
  // (oclif's own messages repeat a value as typed: `expected --split=<3000 characters> to be one of`)
  message = message.replace(/\S{161,}/g, w => clipped(w))
  const near = (err.flags ?? []).map(f => nearest(f.replace(/^-+/, '').split('=')[0]!, command.flags)).filter(Boolean)
  if (near.length) hint = `did you mean ${near.map(f => `--${f}`).join(', ')}? ${hint}`
  return new UsageError(message, hint)
}

/** an argument as a message shows it: quoted when it is empty or has spaces or a comma, cut when it is long */
function shown(a: string): string {
  const cut = clipped(a, 80)
  return a === '' || /[\s,]/.test(a) ? JSON.stringify(cut) : cut
}

function lowerFirst(s: string): string {
  return /^[A-Z][a-z]/.test(s) ? s[0]!.toLowerCase() + s.slice(1) : s
}
