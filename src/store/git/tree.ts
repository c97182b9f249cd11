import {CorruptObjectError} from '../../errors/index.js'
import {OBJECT_MAX, parseTree, parseTreeLike, type ParsedTree, type TreeEntry} from './objects.js'
import type {ObjectReader} from './reader.js'
import type {ObjectSink} from './writer.js'

const TREE_CACHE_MAX = 20_000
const treeCache = new Map<string, TreeEntry[]>()

/** Read and parse a tree, through a small process-wide cache (trees are immutable). */
export async function readTree(reader: ObjectReader, oid: string): Promise<TreeEntry[]> {
  const hit = treeCache.get(oid)
  if (hit) return hit
  const {entries} = await readTreeOnce(reader, oid)
  if (treeCache.size >= TREE_CACHE_MAX) treeCache.delete(treeCache.keys().next().value!)
  treeCache.set(oid, entries)
  return entries
}

/**
 * Read and parse a tree, not kept (a walk of many commits keeps what it needs itself); `like`:
 * the parse of a tree this one is likely a new version of (parseTreeLike).
 */
export async function readTreeOnce(reader: ObjectReader, oid: string, like?: ParsedTree): Promise<ParsedTree> {
  const o = await reader.read(oid, OBJECT_MAX)
  if (o.type !== 'tree') throw new CorruptObjectError('tree', `${oid} is a ${o.type}, not a tree`, {oid})
  return parseTreeLike(o.data, oid, like)
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

/**
 * The entries at many paths under tree `root`, found level by level: the trees each level
 * needs are read in one pipelined batch (a lookup per path would wait on each object in turn).
 */
export async function lookupPaths(reader: ObjectReader, root: string, paths: readonly string[]): Promise<Map<string, TreeEntry>> {
  const out = new Map<string, TreeEntry>()
  const trees = new Map<string, Map<string, TreeEntry>>()
  let work = paths.map(p => ({tree: root, parts: p.split('/'), i: 0, path: p}))
  while (work.length) {
    const need = [...new Set(work.map(w => w.tree))].filter(oid => !trees.has(oid))
    const missing = need.filter(oid => !treeCache.has(oid))
    const got = missing.length ? await reader.readMany(missing) : []
    for (const oid of need) {
      let entries = treeCache.get(oid)
      if (!entries) {
        // a tree cached when `missing` was taken may have been evicted by another lookup since
        const k = missing.indexOf(oid)
        const data = k >= 0 ? got[k]! : (await reader.readMany([oid]))[0]!
        if (data instanceof Error) throw new CorruptObjectError('tree', `${oid}: ${data.message}`, {oid})
        entries = parseTree(data, oid)
        if (treeCache.size >= TREE_CACHE_MAX) treeCache.delete(treeCache.keys().next().value!)
        treeCache.set(oid, entries)
      }
      trees.set(oid, new Map(entries.map(e => [e.name, e])))
    }
    const next: typeof work = []
    for (const w of work) {
      const e = trees.get(w.tree)!.get(w.parts[w.i]!)
      if (!e) continue
      if (w.i === w.parts.length - 1) out.set(w.path, e)
      else if (e.mode === '40000') next.push({...w, tree: e.oid, i: w.i + 1})
    }
    work = next
  }
  return out
}

interface Entry {
  mode: string
  name: string
  oid?: string
  node?: Node
  /** `<mode> <name>\0<20-byte oid>`, re-encoded when the oid (or the mode: bytesOid cleared) changes */
  bytes?: Buffer
  bytesOid?: string
}

interface Node {
  entries: Map<string, Entry>
  /** names in git tree order, kept sorted on insert (re-sorting 256-entry trees per commit dominated big batches) */
  order: Entry[]
  dirty: boolean
}

function gitKey(e: {mode: string; name: string}): string {
  return e.mode === '40000' ? `${e.name}/` : e.name
}

function makeEntry(mode: string, name: string, oid?: string, node?: Node): Entry {
  return {mode, name, oid, node}
}

function insertSorted(node: Node, e: Entry): void {
  const key = gitKey(e)
  let lo = 0
  let hi = node.order.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (gitKey(node.order[mid]!) < key) lo = mid + 1
    else hi = mid
  }
  node.order.splice(lo, 0, e)
  node.entries.set(e.name, e)
}

/**
 * A lane's cumulative tree being extended in memory: `insert` adds a file, `write` emits the
 * changed trees (each with its path as delta lineage) and returns the new root.
 */
export class MutableTree {
  private root: Node | undefined
  constructor(private readonly reader: ObjectReader, private readonly rootOid?: string) {}

  private async load(oid: string | undefined): Promise<Node> {
    const node: Node = {entries: new Map(), order: [], dirty: false}
    if (oid) {
      // readTree returns entries in the tree's own (git) order
      for (const e of await readTree(this.reader, oid)) {
        const entry = makeEntry(e.mode, e.name, e.oid)
        node.order.push(entry)
        node.entries.set(e.name, entry)
      }
    }
    return node
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
        e = makeEntry('40000', name, undefined, {entries: new Map(), order: [], dirty: true})
        insertSorted(node, e)
      } else if (e.mode !== '40000') {
        throw new CorruptObjectError('tree', `${parts.slice(0, i + 1).join('/')} is a file where a folder is expected`)
      }
      e.node ??= await this.load(e.oid)
      node = e.node
    }
    node.dirty = true
    const name = parts[parts.length - 1]!
    const have = node.entries.get(name)
    if (have?.mode === '40000') throw new CorruptObjectError('tree', `${path} is a folder where a file is expected`)
    if (have) {
      // a file keeps its mode (an executable stays one); a symbolic link or a submodule written over becomes a regular file
      if (have.mode !== '100644' && have.mode !== '100755') {
        have.mode = '100644'
        have.bytesOid = undefined
      }
      have.oid = blob
    } else insertSorted(node, makeEntry('100644', name, blob))
  }

  /** Emit every dirty tree bottom-up into `sink`; returns the root tree id. */
  write(sink: ObjectSink, lineage = ''): string {
    if (!this.root) throw new Error('nothing inserted')
    return writeNode(this.root, sink, lineage, '')
  }
}

function writeNode(node: Node, sink: ObjectSink, lineage: string, path: string): string {
  const parts: Buffer[] = []
  for (const e of node.order) {
    if (e.node && e.node.dirty) e.oid = writeNode(e.node, sink, lineage, `${path}/${e.name}`)
    if (e.bytesOid !== e.oid) {
      const head = `${e.mode} ${e.name}\0`
      const b = Buffer.allocUnsafe(Buffer.byteLength(head) + 20)
      const n = b.write(head, 0, 'utf8')
      b.write(e.oid!, n, 'hex')
      e.bytes = b
      e.bytesOid = e.oid
    }
    parts.push(e.bytes!)
  }
  node.dirty = false
  return sink.put('tree', Buffer.concat(parts), `${lineage}:${path}`)
}

/**
 * The paths that differ between two trees, files by full path (a folder that became a file,
 * or the other way round, lists every file on both sides), as `git diff --no-renames
 * --name-only` lists them: a changed mode (a file that became a symbolic link or executable)
 * is a change, a submodule is one path. Read in this process through the object reader
 * (trees are cached): no git process per comparison. A tree that names one entry twice (git
 * never writes one; `git fsck` refuses it) has that path reported changed.
 */
export async function diffTrees(reader: ObjectReader, a: string | undefined, b: string | undefined, prefix = ''): Promise<string[]> {
  if (a === b) return []
  const out: string[] = []
  const index = async (tree: string | undefined) => {
    const m = new Map<string, TreeEntry>()
    const twice = new Set<string>()
    for (const e of tree ? await readTree(reader, tree) : []) {
      if (m.has(e.name)) twice.add(e.name)
      else m.set(e.name, e)
    }
    return {m, twice}
  }
  // (one read at a time: see GitWorkspace.changedPaths)
  const x = await index(a)
  const y = await index(b)
  const names = [...new Set([...x.m.keys(), ...y.m.keys()])].sort()
  const isTree = (e: TreeEntry | undefined) => e?.mode === '40000'
  for (const name of names) {
    const p = prefix + name
    const l = x.m.get(name)
    const r = y.m.get(name)
    if (x.twice.has(name) || y.twice.has(name)) {
      out.push(p)
      continue
    }
    if (l && r && l.mode === r.mode && l.oid === r.oid) continue
    if (isTree(l) || isTree(r)) {
      // a folder on one side at least: what lies under it, on both sides
      // (one at a time: a pull request can change more files than a call takes arguments)
      for (const q of await diffTrees(reader, isTree(l) ? l!.oid : undefined, isTree(r) ? r!.oid : undefined, `${p}/`)) out.push(q)
      if ((l && !isTree(l)) || (r && !isTree(r))) out.push(p)
      continue
    }
    out.push(p)
  }
  return out
}
