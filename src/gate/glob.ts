/** Git-style path globs: `**` any depth, `*` within one segment, `?` one character. */
export function globToRegExp(glob: string): RegExp {
  let re = ''
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!
    if (c === '*') {
      if (glob[i + 1] === '*') {
        // `dir/**` matches everything below dir; `**/x` any depth before x
        const slash = glob[i + 2] === '/'
        re += slash ? '(?:.*/)?' : '.*'
        i += slash ? 2 : 1
      } else re += '[^/]*'
    } else if (c === '?') re += '[^/]'
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&')
  }
  return new RegExp(`^${re}$`)
}

/**
 * The two expressions of a glob (itself, and everything below it as a folder), made once: a
 * scope check tests every changed path against every glob, and the trust checks make one
 * for each accepted proposal (compiling them was a third of the time). Globs come from
 * contracts, a few dozen in all; past GLOBS_MAX distinct ones the memo starts over.
 */
const compiled = new Map<string, readonly [RegExp, RegExp]>()
const GLOBS_MAX = 4096

function expressions(glob: string): readonly [RegExp, RegExp] {
  let r = compiled.get(glob)
  if (!r) {
    if (compiled.size >= GLOBS_MAX) compiled.clear()
    compiled.set(glob, (r = [globToRegExp(glob), globToRegExp(glob.replace(/\/$/, '') + '/**')]))
  }
  return r
}

export function matchesAny(path: string, globs: readonly string[]): boolean {
  return globs.some(g => {
    const [self, below] = expressions(g)
    return self.test(path) || below.test(path)
  })
}
