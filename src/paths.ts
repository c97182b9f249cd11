import path from 'node:path'
import {realpathSync} from 'node:fs'

/**
 * Whether `p` is `dir` or below it (both resolved). A path below `dir` whose first folder's
 * name begins with two dots (`..out`, `..results`) is below it: only `..` itself, as the first
 * segment, leaves. (`!rel.startsWith('..')` took such a folder for one outside, and the checks
 * made only inside the work tree — a folder that is a symbolic link — were skipped for it.)
 */
export function within(p: string, dir: string): boolean {
  const rel = path.relative(path.resolve(dir), path.resolve(p))
  return rel === '' || (!isUp(rel) && !path.isAbsolute(rel))
}

/** A path shown relative to `from` when it is below it, as given otherwise. */
export function shownFrom(from: string, p: string): string {
  const rel = path.relative(from, p)
  return rel && !isUp(rel) && !path.isAbsolute(rel) ? rel : p
}

function isUp(rel: string): boolean {
  return rel === '..' || rel.startsWith(`..${path.sep}`)
}

/** `p` with every symbolic link resolved: its nearest existing ancestor's real path, and the rest (which does not exist yet) as given. */
export function realPathOf(p: string): string {
  const rest: string[] = []
  for (let at = p; ; at = path.dirname(at)) {
    try {
      return path.join(realpathSync(at), ...rest.reverse())
    } catch {
      if (path.dirname(at) === at) return p
      rest.push(path.basename(at))
    }
  }
}
