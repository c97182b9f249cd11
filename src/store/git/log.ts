import {parseCommit} from './objects.js'
import type {ObjectReader} from './reader.js'
import {readTree} from './tree.js'
import {runGit} from './native.js'
import {CorruptObjectError} from '../../errors/index.js'

export interface Change {
  status: 'A' | 'M' | 'D'
  path: string
  blob: string
}

/** One commit of a lane with what it changed relative to its first parent. */
export interface LaneCommit {
  oid: string
  parents: string[]
  message: string
  changes: Change[]
}

/** What changed between two trees, descending only into subtrees whose ids differ. */
export async function diffTrees(reader: ObjectReader, from: string | undefined, to: string | undefined, prefix = ''): Promise<Change[]> {
  if (from === to) return []
  const a = from ? await readTree(reader, from) : []
  const b = to ? await readTree(reader, to) : []
  const am = new Map(a.map(e => [e.name, e]))
  const bm = new Map(b.map(e => [e.name, e]))
  const out: Change[] = []
  const names = [...new Set([...am.keys(), ...bm.keys()])].sort()
  for (const name of names) {
    const x = am.get(name)
    const y = bm.get(name)
    const path = prefix ? `${prefix}/${name}` : name
    if (x && y && x.oid === y.oid) continue
    const xt = x?.mode === '40000'
    const yt = y?.mode === '40000'
    if (xt || yt) {
      out.push(...(await diffTrees(reader, xt ? x!.oid : undefined, yt ? y!.oid : undefined, path)))
      if (x && !xt) out.push({status: 'D', path, blob: x.oid})
      if (y && !yt) out.push({status: 'A', path, blob: y.oid})
    } else if (x && y) out.push({status: 'M', path, blob: y.oid})
    else if (x) out.push({status: 'D', path, blob: x.oid})
    else out.push({status: 'A', path, blob: y!.oid})
  }
  return out
}

/** Commits of a lane from `stop` (exclusive) to `tip`, oldest first, through isomorphic-git objects. */
export async function laneCommitsIso(reader: ObjectReader, tip: string, stop?: string): Promise<LaneCommit[]> {
  const out: LaneCommit[] = []
  let oid: string | undefined = tip
  while (oid && oid !== stop) {
    const o = await reader.read(oid)
    if (o.type !== 'commit') throw new CorruptObjectError('commit', `${oid} is a ${o.type}`, {oid})
    const c = parseCommit(o.data, oid)
    const parentTree: string | undefined = c.parents[0] ? parseCommit((await reader.read(c.parents[0])).data, c.parents[0]).tree : undefined
    out.push({oid, parents: c.parents, message: c.message, changes: await diffTrees(reader, parentTree, c.tree)})
    oid = c.parents[0]
  }
  if (stop && oid !== stop) throw new CorruptObjectError('lane', `${stop} is not an ancestor of ${tip}`)
  return out.reverse()
}

/** The same through one `git log --raw` (native fast path). */
export async function laneCommitsNative(gitDir: string, tip: string, stop?: string): Promise<LaneCommit[]> {
  const args = ['--git-dir', gitDir, 'log', '--first-parent', '--reverse', '--no-renames', '--raw', '--no-abbrev', '--format=%x01%H%x02%P%x02%B%x03', tip]
  if (stop) args.push(`^${stop}`)
  const {stdout} = await runGit(args, {cwd: gitDir})
  const text = stdout.toString('utf8')
  const out: LaneCommit[] = []
  for (const chunk of text.split('\x01')) {
    if (!chunk) continue
    const a = chunk.indexOf('\x02')
    const b = chunk.indexOf('\x02', a + 1)
    const end = chunk.lastIndexOf('\x03')
    const oid = chunk.slice(0, a)
    const parents = chunk.slice(a + 1, b).split(' ').filter(Boolean)
    const message = chunk.slice(b + 1, end)
    const changes: Change[] = []
    for (const line of chunk.slice(end + 1).split('\n')) {
      if (line[0] !== ':') continue
      // :<srcmode> <dstmode> <srcoid> <dstoid> <status>\t<path>
      const tab = line.indexOf('\t')
      const f = line.slice(1, tab).split(' ')
      const status = f[4]![0] as Change['status']
      changes.push({status, path: unquote(line.slice(tab + 1)), blob: status === 'D' ? f[2]! : f[3]!})
    }
    out.push({oid, parents, message, changes})
  }
  return out
}

function unquote(p: string): string {
  return p.startsWith('"') ? (JSON.parse(p) as string) : p
}
