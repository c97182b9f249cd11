import {spawn} from 'node:child_process'
import {CorruptObjectError} from '../../errors/index.js'

/**
 * Every file (blob id) of a commit's tree, by path, from one `git ls-tree -r -z` (what a full read of
 * a lane needs instead of diffing each commit against its parent: in a cumulative lane tree
 * the tip holds every record file).
 */
export function listTreeNative(gitDir: string, commit: string): Promise<Map<string, string>> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['--git-dir', gitDir, 'ls-tree', '-r', '-z', '--full-tree', commit], {stdio: ['ignore', 'pipe', 'pipe']})
    const out = new Map<string, string>()
    // entries are parsed from bytes (NUL-separated): each path and id is a string of its own,
    // not a slice that would hold the whole listing in memory while the map is used
    let rest: Buffer | undefined
    let stderr = ''
    const take = (buf: Buffer, from: number, to: number) => {
      // <mode> SP <type> SP <oid> TAB <path>
      const sp = buf.indexOf(0x20, from)
      const tab = buf.indexOf(0x09, sp + 1)
      if (sp < 0 || sp >= to || tab < 0 || tab > to || buf.toString('latin1', sp + 1, sp + 6) !== 'blob ') return
      out.set(buf.toString('utf8', tab + 1, to), buf.toString('latin1', sp + 6, tab))
    }
    child.stdout.on('data', (d: Buffer) => {
      let start = 0
      let nul = d.indexOf(0)
      if (rest) {
        if (nul < 0) {
          rest = Buffer.concat([rest, d])
          return
        }
        const head = Buffer.concat([rest, d.subarray(0, nul)])
        take(head, 0, head.length)
        rest = undefined
        start = nul + 1
        nul = d.indexOf(0, start)
      }
      while (nul >= 0) {
        take(d, start, nul)
        start = nul + 1
        nul = d.indexOf(0, start)
      }
      if (start < d.length) rest = Buffer.from(d.subarray(start))
    })
    child.stderr.on('data', d => (stderr += d))
    child.on('error', reject)
    child.on('close', code => {
      if (code === 0) resolve(out)
      else reject(new CorruptObjectError('tree', `git ls-tree ${commit} failed: ${stderr.trim().split('\n').pop()}`, {commit}))
    })
  })
}
