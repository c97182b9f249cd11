import {existsSync, realpathSync} from 'node:fs'
import path from 'node:path'

/** A word for a POSIX shell: as is when it is safe, else single-quoted. */
export function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`
}

/**
 * How to run this very exp again from a shell, for commands that print follow-up commands:
 * `exp` when the `exp` on PATH is this installation (npm install -g, npm link), else
 * `node /path/to/bin/run.js` (the README's `node bin/run.js demo` puts nothing on PATH).
 */
export function expInvocation(argv1: string | undefined = process.argv[1], env: NodeJS.ProcessEnv = process.env): string {
  const real = (p: string) => {
    try {
      return realpathSync(p)
    } catch {
      return undefined
    }
  }
  const script = argv1 ? real(argv1) : undefined
  if (!script) return 'exp'
  // git exp runs bin/git-exp.js, which loads bin/run.js beside it
  const run = path.join(path.dirname(script), 'run.js')
  const target = existsSync(run) ? run : script
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir && real(path.join(dir, 'exp')) === target) return 'exp'
  }
  return `node ${shellWord(target)}`
}
