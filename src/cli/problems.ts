import {exitFor} from '../errors/index.js'
import {LANE_FAILURES, type ReadProblem} from '../store/index.js'
import {plainText} from './plain.js'

/**
 * Records skipped are warnings (their lanes already were, by the store); a lane that could not
 * be read at all, or any problem under --strict, sets the integrity exit status (5) after the
 * output, so that what could be read is still printed.
 */
export function reportProblems(problems: readonly ReadProblem[], strict = false): void {
  const records = problems.filter(p => !p.code.startsWith('lane-'))
  // (a lane's ref name and a record's path are another clone's words: shown as plain text, as on stdout)
  for (const p of records.slice(0, 20)) process.stderr.write(plainText(`warning: skipped ${p.ref}${p.commit ? ` ${p.commit.slice(0, 12)}` : ''}${p.path ? ` ${p.path}` : ''}: ${p.message}`) + '\n')
  if (records.length > 20) process.stderr.write(`warning: … and ${records.length - 20} more (see \`exp fsck\`)\n`)
  const failed = problems.filter(p => LANE_FAILURES.has(p.code))
  if (failed.length || (strict && problems.length)) {
    process.stderr.write(plainText(`error: ${failed.length ? `${failed.length} lane(s) could not be read: ${failed.map(p => p.ref).join(', ')}` : `${problems.length} record(s) could not be read`}`) + '\n')
    process.stderr.write('hint: run `exp fsck` for details and what to do\n')
    process.exitCode = exitFor('E_INTEGRITY')
  }
}
