import {spawn} from 'node:child_process'
import {CorruptObjectError} from '../../errors/index.js'
import {ByteSplitter} from './split.js'

/**
 * Every file (blob id) of a commit's tree, by path, from one `git ls-tree -r -z` (what a full read of
 * a lane needs instead of diffing each commit against its parent: in a cumulative lane tree
 * the tip holds every record file).
 */
export async function listTreeNative(gitDir: string, commit: string): Promise<Map<string, string>> {
  const out = new Map<string, string>()
  await eachTreeFile(gitDir, commit, (p, blob) => {
    out.set(p, blob)
    return true
  })
  return out
}

/**
 * Each file of a commit's tree (path, blob id) as `git ls-tree -r -z` lists it, handed to
 * `take` without keeping a map of them; `take` returning false stops the listing (resolves
 * false). Rejects when git fails.
 */
export function eachTreeFile(gitDir: string, commit: string, take: (path: string, blob: string) => boolean): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['--git-dir', gitDir, 'ls-tree', '-r', '-z', '--full-tree', commit], {stdio: ['ignore', 'pipe', 'pipe']})
    // entries are NUL-terminated, parsed from bytes (split.ts)
    const pieces = new ByteSplitter(0)
    let stderr = ''
    let stopped = false
    const entry = (buf: Buffer, from: number, to: number) => {
      // <mode> SP <type> SP <oid> TAB <path>
      if (stopped) return
      const sp = buf.indexOf(0x20, from)
      const tab = buf.indexOf(0x09, sp + 1)
      if (sp < 0 || sp >= to || tab < 0 || tab > to || buf.toString('latin1', sp + 1, sp + 6) !== 'blob ') return
      if (!take(buf.toString('utf8', tab + 1, to), buf.toString('latin1', sp + 6, tab))) {
        stopped = true
        child.kill()
      }
    }
    child.stdout.on('data', (d: Buffer) => pieces.feed(d, entry))
    child.stderr.on('data', d => (stderr += d))
    child.on('error', reject)
    child.on('close', code => {
      if (stopped) resolve(false)
      else if (code === 0) resolve(true)
      else reject(new CorruptObjectError('tree', `git ls-tree ${commit} failed: ${stderr.trim().split('\n').pop()}`, {commit}))
    })
  })
}

/**
 * The commits of a lane's first-parent history, newest first, from one `git rev-list
 * --first-parent --parents` (no messages and no diffs: a tenth of what `git log` costs), with
 * whether any of them is a merge. Undefined when git fails (the caller's slower read names why).
 */
export function firstParentsNative(gitDir: string, tip: string): Promise<{commits: string[]; merge: boolean} | undefined> {
  return new Promise(resolve => {
    const child = spawn('git', ['--git-dir', gitDir, 'rev-list', '--first-parent', '--parents', tip], {stdio: ['ignore', 'pipe', 'ignore']})
    const commits: string[] = []
    let merge = false
    const pieces = new ByteSplitter(0x0a)
    // <oid> [SP <parent>]...
    const take = (buf: Buffer, from: number, to: number) => {
      const sp = buf.indexOf(0x20, from)
      const end = sp < 0 || sp >= to ? to : sp
      commits.push(buf.toString('latin1', from, end))
      if (end < to && buf.indexOf(0x20, end + 1) >= 0 && buf.indexOf(0x20, end + 1) < to) merge = true
    }
    child.stdout.on('data', (d: Buffer) => pieces.feed(d, take))
    child.on('error', () => resolve(undefined))
    child.on('close', code => resolve(code === 0 ? {commits, merge} : undefined))
  })
}
