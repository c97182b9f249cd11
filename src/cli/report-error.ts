import type {ExpError} from '../errors/index.js'
import {plainText} from './plain.js'
import {writeStdout} from './broken-pipe.js'

/**
 * exp's one error format: `error:` and `hint:` on stderr (as plain text: src/cli/plain.ts),
 * `{"error": {code, message, hint, data}}` on stdout too under --json, and the error's exit
 * status. Used by every command (ExpCommand.catch) and by the words no command matches
 * (hooks/command-not-found.ts).
 */
export function reportExpError(err: ExpError, opts: {json: boolean; debug: boolean}): void {
  if (opts.json) writeStdout(`${JSON.stringify({error: err.toJSON()}, null, 2)}\n`, {quiet: true})
  process.stderr.write(`error: ${plainText(err.message)}\n`)
  if (err.hint) process.stderr.write(`hint: ${plainText(err.hint)}\n`)
  if (opts.debug && err.stack) process.stderr.write(`${err.stack}\n`)
  process.exitCode = err.exit
}
