import {escapeUnsafe} from '../records/index.js'
import {uEscape} from '../records/summary.js'

/**
 * Text a command prints for a person (ExpCommand.log, .note): tab and newline pass, a CRLF
 * becomes a newline, and every other control character (C0, DEL, C1) and every
 * bidirectional formatting character is shown as a `\uXXXX` escape. What exp prints holds
 * text from records of other lanes, file names of pull requests and output of evaluators:
 * none of it may drive the terminal (escape sequences, a carriage return over a verdict) or
 * reorder what it shows (U+202E). (--json output is JSON's: escaped by JSON.stringify.)
 */
export function plainText(s: string): string {
  // (U+2028 and U+2029 too: line separators to some terminals and viewers, raw in JSON.stringify's output)
  return escapeUnsafe(s.replace(/\r\n/g, '\n')).replace(/[\u2028\u2029]/g, uEscape)
}
