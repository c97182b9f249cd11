import type {ExpRecord} from './types.js'

const MAX = 72

/**
 * One line of plain text: whitespace, NUL and every other control character (C0, DEL, C1,
 * the Unicode line separators) become single spaces. A summary is a commit subject: git cuts
 * a message at a NUL (losing the trailers that index the record), and `git fsck --strict`
 * refuses it. So do the bidirectional formatting characters (U+200E, U+200F, U+202A–U+202E,
 * U+2066–U+2069): a summary is printed in every table, and one of another lane's records could
 * otherwise reorder what a terminal shows around it ("Trojan Source").
 */
export function oneLine(s: string): string {
  return s.replace(ONE_LINE, ' ').trim()
}

/**
 * Characters that draw nothing as text but move or reorder what a terminal shows: C0 but tab
 * and newline, DEL, C1, and the bidirectional formatting characters. One list for every place
 * that prints text it did not write (src/cli/plain.ts, src/gate/scope.ts shownPath).
 */
export const UNSAFE_TEXT = '\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069'

/** `\uXXXX`, as JSON writes a character it escapes. */
export const uEscape = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`

const UNSAFE = new RegExp(`[${UNSAFE_TEXT}]`, 'g')

/** `s` with every unsafe character shown as its `\uXXXX` escape (tab and newline pass). */
export function escapeUnsafe(s: string): string {
  return s.replace(UNSAFE, uEscape)
}

/**
 * One line of a plain-text view that holds record text (a dashboard's proposed line, a
 * reason): every unsafe character, and every character that would start another line (a
 * newline, CR, U+2028, U+2029), shown as its `\uXXXX` escape, so another lane's text can
 * neither drive a terminal nor add lines that look like the view's own ("Decision: ACCEPT").
 */
export function textLine(s: string): string {
  return escapeUnsafe(s).replace(/[\n\u2028\u2029]/g, uEscape)
}

// an unsafe character or a line separator other than a newline
const IN_MESSAGE = new RegExp(`[\\u2028\\u2029${UNSAFE_TEXT}]`, 'g')

/**
 * A commit message exp writes (a proposal's, a promotion's merge, an attempt's): its lines as
 * they are, every unsafe character and every line separator but the newline (CR, U+2028,
 * U+2029) a space. Its text comes from records and a model's replies: a NUL made `git fsck
 * --strict` fail (nulInCommit), a push to a remote with `receive.fsckObjects` refused, and
 * `git log` cut the message there, trailers and all; an escape or a bidirectional character
 * drove the terminal of whoever read `git log`. Applied where commits are built
 * (src/store/git/commits.ts commitFiles, the workspaces' commitWorktree).
 */
export function commitText(message: string): string {
  return message.replace(IN_MESSAGE, ' ')
}

// whitespace, the line separators, and every unsafe character (a summary is a commit subject too)
const ONE_LINE = new RegExp(`[\\s\\u2028\\u2029${UNSAFE_TEXT}]+`, 'g')

function clip(s: string): string {
  const one = oneLine(s)
  return one.length <= MAX ? one : `${sliceText(one, MAX - 1)}…`
}

/**
 * The first `max` UTF-16 units of a string, or one fewer when the last of them would be the
 * first half of a surrogate pair: a string cut for a record never ends in a lone surrogate
 * (no character, and not UTF-8 when written).
 */
export function sliceText(s: string, max: number): string {
  if (s.length <= max) return s
  const last = s.charCodeAt(max - 1)
  return s.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max)
}

/** One line describing a record, used as the commit subject `<kind>: <summary>`. */
export function summarize(r: ExpRecord): string {
  switch (r.kind) {
    case 'manifest': return clip(`${r.body.purpose} ${r.body.split} with ${r.body.agent.name} on ${r.body.skill.name}`)
    case 'trace': return clip(`${r.body.scenario} #${r.body.repetition} ${r.body.status}`)
    case 'verification': return clip(`${r.body.scenario} #${r.body.repetition ?? 0} ${r.body.valid ? (r.body.passed ? 'passed' : 'failed') : 'invalid'}`)
    case 'evaluation': return clip(`${r.body.split} ${r.body.passed}/${r.body.total} (${(r.body.success_rate * 100).toFixed(1)}%)`)
    case 'evidence': return clip(r.body.signature)
    case 'knowledge': return clip(`${r.body.slug}: ${r.body.claim.text}`)
    case 'hypothesis': return clip(r.body.statement)
    case 'recall': return clip(`${r.body.items.length} items for ${r.body.purpose}`)
    case 'proposal': return clip(`${r.body.skill}: ${r.body.reason}`)
    case 'decision': return clip(`${r.body.verdict} ${r.body.proposal}`)
    case 'claim': return clip(`${r.body.hypothesis} by ${r.body.holder}`)
    case 'release': return clip(`${r.body.hypothesis} by ${r.body.holder}`)
    case 'note': return clip(r.body.text)
    case 'attempt': return clip(`${r.body.contract.name} #${r.body.ordinal} on ${r.body.branch}`)
    case 'observation': return clip(`${r.body.contract.name} ${r.body.split} #${r.body.repetition}${r.body.retry ? ` retry ${r.body.retry}` : ''} ${r.body.ran ? (r.body.timed_out ? 'timed out' : `exit ${r.body.exit_code ?? r.body.signal}`) : 'not run'}`)
    case 'verdict': return clip(`${r.body.contract.name} ${r.body.split} #${r.body.repetition} ${r.body.outcome}${r.body.metric ? ` ${r.body.metric.name}=${r.body.metric.value}` : ''}${r.body.needs_retry ? ` needs_retry (${r.body.needs_retry.stop_reason})` : ''}`)
  }
}
