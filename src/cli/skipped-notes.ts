import type {SkippedNote} from '../reports/notes.js'
import {plainText} from './plain.js'

const SHOWN = 20

/**
 * The notes a view read as data (a compare, gain or ablation result) and left out as malformed
 * (src/reports/notes.ts), said on stderr once each, as `warning: skipped note ID: …`: the view
 * goes on without them. At most 20 are named (any lane can write any number), then a count.
 */
export class SkippedNotes {
  private readonly seen = new Map<string, string>()

  /** for the views' `skipped` option */
  readonly add = (s: SkippedNote): void => {
    if (!this.seen.has(s.note)) this.seen.set(s.note, s.problem)
  }

  /** Say which notes were left out (the problem is another lane's text: shown as plain text). */
  report(write: (line: string) => void = line => process.stderr.write(`${line}\n`)): void {
    let n = 0
    for (const [note, problem] of this.seen) if (n++ < SHOWN) write(plainText(`warning: skipped note ${note}: ${problem}; the view goes on without it`))
    if (this.seen.size > SHOWN) write(`warning: … and ${this.seen.size - SHOWN} more malformed note(s)`)
  }
}
