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

export function matchesAny(path: string, globs: readonly string[]): boolean {
  return globs.some(g => globToRegExp(g).test(path) || globToRegExp(g.replace(/\/$/, '') + '/**').test(path))
}
