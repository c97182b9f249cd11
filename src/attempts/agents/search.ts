import {parse as parseYaml, stringify as stringifyYaml} from '../../vendor/yaml.js'
import {canonicalJson} from '../../records/canonical.js'
import type {EditedFile, ResearchAgent, ResearchMove, ResearchTask} from './types.js'
import {moveKey} from './types.js'

/**
 * `--agent search`: a deterministic, offline research agent. It reads the numeric values
 * of the editable JSON and YAML files and does a coarse-to-fine coordinate search from
 * main's values: each value times and divided by 8, then by 2, then (integers) plus and
 * minus 1, first untried move first; the starting coordinate turns with the seed. What any
 * lane already tried (the public evidence) or holds (`exclude`) is skipped. It learns only
 * through main: a promotion moves the point the next moves start from.
 */
interface Leaf {
  file: string
  path: (string | number)[]
  value: number
}

const FACTORS = [8, 2]

function leaves(v: unknown, file: string, at: (string | number)[] = []): Leaf[] {
  if (typeof v === 'number' && Number.isFinite(v)) return [{file, path: at, value: v}]
  if (Array.isArray(v)) return v.flatMap((x, i) => leaves(x, file, [...at, i]))
  if (v && typeof v === 'object') return Object.keys(v).sort().flatMap(k => leaves((v as Record<string, unknown>)[k], file, [...at, k]))
  return []
}

function setAt(doc: unknown, p: readonly (string | number)[], value: number): unknown {
  const copy = JSON.parse(JSON.stringify(doc)) as Record<string, unknown>
  let node: Record<string | number, unknown> = copy
  for (const k of p.slice(0, -1)) node = node[k] as Record<string | number, unknown>
  node[p[p.length - 1]!] = value
  return copy
}

function parse(f: EditedFile): unknown {
  if (f.content === null) return undefined
  try {
    return /\.json$/.test(f.path) ? JSON.parse(f.content) : /\.ya?ml$/.test(f.path) ? parseYaml(f.content) : undefined
  } catch {
    return undefined
  }
}

function render(file: string, doc: unknown): string {
  return /\.json$/.test(file) ? `${JSON.stringify(doc, null, 2)}\n` : stringifyYaml(doc)
}

/** The values a coordinate may move to, coarse before fine. */
function moves(l: Leaf): number[] {
  const int = Number.isInteger(l.value)
  const out: number[] = []
  for (const f of FACTORS) {
    for (const v of [l.value * f, l.value / f]) {
      const x = int ? Math.max(1, Math.round(v)) : Math.round(v * 1e6) / 1e6
      if (x !== l.value && !out.includes(x)) out.push(x)
    }
  }
  if (int) for (const x of [l.value + 1, l.value - 1]) if (x >= 1 && !out.includes(x)) out.push(x)
  return out
}

export function createSearchAgent(): ResearchAgent {
  return {
    name: 'search',
    params: {strategy: 'coarse-to-fine coordinate search', factors: FACTORS},
    async propose(task: ResearchTask): Promise<ResearchMove | null> {
      const docs = task.files.map(f => ({f, doc: parse(f)})).filter(x => x.doc !== undefined)
      const all = docs.flatMap(x => leaves(x.doc, x.f.path))
      if (!all.length) return null
      const tried = new Set([...task.evidence.map(e => fileKey(e.files)), ...task.exclude])
      // what it learned: a value a coordinate was moved to that made things worse, or ran out of time, is not tried again
      const failed = new Set(task.evidence.filter(e => e.state === 'needs_retry' || (e.state === 'rejected' && /negative|invalid/.test(e.dev?.outcome ?? 'invalid'))).flatMap(e => {
        const m = /^(\S+): \S+ -> (\S+)$/.exec(e.reason ?? '')
        return m ? [`${m[1]}=${m[2]}`] : []
      }))
      const start = task.seed % all.length
      const order = [...all.slice(start), ...all.slice(0, start)]
      // every coordinate's coarsest move first, then the next finer ones
      const width = Math.max(...order.map(l => moves(l).length))
      for (let step = 0; step < width; step++) {
        for (const l of order) {
          const to = moves(l)[step]
          if (to === undefined || failed.has(`${l.path.join('.')}=${to}`)) continue
          const edited = docs.map(x => (x.f.path === l.file ? {path: x.f.path, content: render(x.f.path, setAt(x.doc, l.path, to))} : x.f))
          const move: ResearchMove = {
            hypothesis: {statement: `setting ${l.path.join('.')} in ${l.file} from ${l.value} to ${to} improves ${task.contract.metric.name}`, mechanism: `coordinate search: ${to > l.value ? 'more' : 'less'} ${l.path.join('.')}`},
            edits: edited.filter((e, i) => e.content !== docs[i]!.f.content),
            reason: `${l.path.join('.')}: ${l.value} -> ${to}`,
          }
          if (!tried.has(fileKey(edited)) && !tried.has(moveKey(move))) return move
        }
      }
      return null
    },
  }
}

/** A set of editable files as one comparable string (normalized JSON where it parses). */
export function fileKey(files: readonly EditedFile[]): string {
  return canonicalJson([...files].sort((a, b) => (a.path < b.path ? -1 : 1)).map(f => {
    const doc = parse(f)
    return [f.path, doc === undefined ? f.content : doc]
  }))
}
