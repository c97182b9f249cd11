import {spawn} from 'node:child_process'
import {CorruptObjectError} from '../../errors/index.js'
import {ByteSplitter} from './split.js'

/**
 * Every file (blob id) of a commit's tree, by path, from one `git ls-tree -r -z` (what a full read of
 * a lane needs instead of diffing each commit against its parent: in a cumulative lane tree
 * the tip holds every record file).
 */
export function listTreeNative(gitDir: string, commit: string): Promise<Map<string, string>> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['--git-dir', gitDir, 'ls-tree', '-r', '-z', '--full-tree', commit], {stdio: ['ignore', 'pipe', 'pipe']})
    const out = new Map<string, string>()
    // entries are NUL-terminated, parsed from bytes (split.ts)
    const pieces = new ByteSplitter(0)
    let stderr = ''
    const take = (buf: Buffer, from: number, to: number) => {
      // <mode> SP <type> SP <oid> TAB <path>
      const sp = buf.indexOf(0x20, from)
      const tab = buf.indexOf(0x09, sp + 1)
      if (sp < 0 || sp >= to || tab < 0 || tab > to || buf.toString('latin1', sp + 1, sp + 6) !== 'blob ') return
      out.set(buf.toString('utf8', tab + 1, to), buf.toString('latin1', sp + 6, tab))
    }
    child.stdout.on('data', (d: Buffer) => pieces.feed(d, take))
    child.stderr.on('data', d => (stderr += d))
    child.on('error', reject)
    child.on('close', code => {
      if (code === 0) resolve(out)
      else reject(new CorruptObjectError('tree', `git ls-tree ${commit} failed: ${stderr.trim().split('\n').pop()}`, {commit}))
    })
  })
}
