import {execFile} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'

/** process.env without tap's own variables: tap's NODE_OPTIONS would instrument every child node process. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) if (k !== 'NODE_OPTIONS' && !k.startsWith('TAP') && !k.startsWith('_TAP')) env[k] = v
  return env
}

/** Environment for child processes in tests: a fixed git identity, no tap instrumentation. */
export const GIT_ENV: NodeJS.ProcessEnv = {
  ...cleanEnv(),
  GIT_AUTHOR_NAME: 'exp test',
  GIT_AUTHOR_EMAIL: 'test@exp.invalid',
  GIT_COMMITTER_NAME: 'exp test',
  GIT_COMMITTER_EMAIL: 'test@exp.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
  EXP_LANE: '',
}

export function git(cwd: string, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', args, {cwd, env: GIT_ENV, maxBuffer: 64 * 1024 * 1024}, (err, stdout, stderr) => {
      if (err) reject(new Error(`git ${args.join(' ')}: ${stderr || err.message}`))
      else resolve(stdout)
    })
  })
}

/** A temp folder removed when the test ends. */
export function tempDir(t: {teardown(fn: () => void): void}, prefix = 'exp-test-'): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix))
  t.teardown(() => rmSync(dir, {recursive: true, force: true}))
  return dir
}

/** A fresh git repository (work tree) in a temp folder, with one commit on main. */
export async function makeRepo(t: {teardown(fn: () => void): void}, opts: {bare?: boolean; empty?: boolean} = {}): Promise<string> {
  const dir = tempDir(t)
  if (opts.bare) {
    await git(dir, 'init', '-q', '--bare', '-b', 'main')
    return dir
  }
  await git(dir, 'init', '-q', '-b', 'main')
  await git(dir, 'config', 'user.name', 'exp test')
  await git(dir, 'config', 'user.email', 'test@exp.invalid')
  if (!opts.empty) await git(dir, 'commit', '-q', '--allow-empty', '-m', 'init')
  return dir
}
