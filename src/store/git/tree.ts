import {CorruptObjectError} from '../../errors/index.js'
import {encodeTree, parseTree, type TreeEntry} from './objects.js'
import type {ObjectReader} from './reader.js'
import type {ObjectSink} from './writer.js'

const TREE_CACHE_MAX = 20_000
const treeCache = new Map<string, TreeEntry[]>()

/** Read and parse a tree, through a small process-wide cache (trees are immutable). */
export async function readTree(reader: ObjectReader, oid: string): Promise<TreeEntry[]> {
  const hit = treeCache.get(oid)
  if (hit) return hit
  const o = await reader.read(oid)
  if (o.type !== 'tree') throw new CorruptObjectError('tree', `${oid} is a ${o.type}, not a tree`, {oid})
  const entries = parseTree(o.data, oid)
  if (treeCache.size >= TREE_CACHE_MAX) treeCache.delete(treeCache.keys().next().value!)
  treeCache.set(oid, entries)
  return entries
}

/** The entry at `path` under tree `root`, if any. */
export async function lookupPath(reader: ObjectReader, root: string, path: string): Promise<TreeEntry | undefined> {
  let tree = root
  const parts = path.split('/')
  for (let i = 0; i < parts.length; i++) {
    const e = (await readTree(reader, tree)).find(x => x.name === parts[i])
    if (!e) return undefined
    if (i === parts.length - 1) return e
    if (e.mode !== '40000') return undefined
    tree = e.oid
  }
  return undefined
}

interface Node {
  entries: Map<string, {mode: string; oid?: string; node?: Node}>
  dirty: boolean
}

/**
 * A lane's cumulative tree being extended in memory: `insert` adds a file, `write` emits the
 * changed trees (each with its path as delta lineage) and returns the new root.
 */
export class MutableTree {
  private root: Node | undefined
  constructor(private readonly reader: ObjectReader, private readonly rootOid?: string) {}

  private async load(oid: string | undefined): Promise<Node> {
    const entries = new Map<string, {mode: string; oid?: string; node?: Node}>()
    if (oid) for (const e of await readTree(this.reader, oid)) entries.set(e.name, {mode: e.mode, oid: e.oid})
    return {entries, dirty: false}
  }

  async insert(path: string, blob: string): Promise<void> {
    this.root ??= await this.load(this.rootOid)
    const parts = path.split('/')
    let node = this.root
    for (let i = 0; i < parts.length - 1; i++) {
      node.dirty = true
      const name = parts[i]!
      let e = node.entries.get(name)
      if (!e) {
        e = {mode: '40000', node: {entries: new Map(), dirty: true}}
        node.entries.set(name, e)
      } else if (e.mode !== '40000') {
        throw new CorruptObjectError('tree', `${parts.slice(0, i + 1).join('/')} is a file where a folder is expected`)
      }
      e.node ??= await this.load(e.oid)
      node = e.node
    }
    node.dirty = true
    node.entries.set(parts[parts.length - 1]!, {mode: '100644', oid: blob})
  }

  /** Emit every dirty tree bottom-up into `sink`; returns the root tree id. */
  write(sink: ObjectSink, lineage = ''): string {
    if (!this.root) throw new Error('nothing inserted')
    return writeNode(this.root, sink, lineage, '')
  }
}

function writeNode(node: Node, sink: ObjectSink, lineage: string, path: string): string {
  const entries: TreeEntry[] = []
  for (const [name, e] of node.entries) {
    if (e.node && e.node.dirty) e.oid = writeNode(e.node, sink, lineage, `${path}/${name}`)
    entries.push({mode: e.mode, name, oid: e.oid!})
  }
  node.dirty = false
  return sink.put('tree', encodeTree(entries), `${lineage}:${path}`)
}
