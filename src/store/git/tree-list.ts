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
    let rest = ''
    let stderr = ''
    const take = () => {
      let start = 0
      for (;;) {
        const nul = rest.indexOf('\0', start)
        if (nul < 0) break
        // <mode> SP <type> SP <oid> TAB <path>
        const tab = rest.indexOf('\t', start)
        const sp = rest.indexOf(' ', start)
        if (rest.startsWith('blob', sp + 1)) out.set(rest.slice(tab + 1, nul), rest.slice(tab - 40, tab))
        start = nul + 1
      }
      rest = rest.slice(start)
    }
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (d: string) => {
      rest += d
      take()
    })
    child.stderr.on('data', d => (stderr += d))
    child.on('error', reject)
    child.on('close', code => {
      if (code === 0) resolve(out)
      else reject(new CorruptObjectError('tree', `git ls-tree ${commit} failed: ${stderr.trim().split('\n').pop()}`, {commit}))
    })
  })
}
