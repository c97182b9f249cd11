/**
 * Text a command prints for a person (ExpCommand.log, .note): tab and newline pass, a CRLF
 * becomes a newline, and every other control character (C0, DEL, C1) and every
 * bidirectional formatting character is shown as a `\uXXXX` escape. What exp prints holds
 * text from records of other lanes, file names of pull requests and output of evaluators:
 * none of it may drive the terminal (escape sequences, a carriage return over a verdict) or
 * reorder what it shows (U+202E). (--json output is JSON's: escaped by JSON.stringify.)
 */
export function plainText(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/\r\n/g, '\n').replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, c => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}
