import type {EvidenceGraph, GraphNode} from './graph.js'

export const GRAPH_FORMATS = ['json', 'mermaid', 'dot'] as const
export type GraphFormat = (typeof GRAPH_FORMATS)[number]

const SHAPE: Record<GraphNode['kind'], [string, string]> = {
  hypothesis: ['(["', '"])'],
  proposal: ['["', '"]'],
  evaluation: ['[/"', '"/]'],
  decision: ['{"', '"}'],
  commit: ['(("', '"))'],
}

function mermaidId(id: string): string {
  return id.replace(/[^A-Za-z0-9_]/g, '_')
}

function mermaidText(s: string): string {
  return s.replace(/"/g, '#quot;').replace(/</g, '#lt;').replace(/>/g, '#gt;')
}

function caption(n: GraphNode): string {
  if (n.kind === 'hypothesis') return `${n.id} ${n.status}: ${n.label}`
  if (n.kind === 'commit') return n.label
  return `${n.kind} ${n.id}: ${n.label}`
}

/** Mermaid flowchart; hypotheses are classed by status so negative evidence stands out. */
export function toMermaid(g: EvidenceGraph): string {
  const lines = ['graph LR']
  for (const n of g.nodes) {
    const [open, close] = SHAPE[n.kind]
    lines.push(`  ${mermaidId(n.id)}${open}${mermaidText(caption(n))}${close}${n.status ? `:::${n.status}` : n.verdict === 'reject' ? ':::contradicted' : ''}`)
  }
  for (const e of g.edges) lines.push(`  ${mermaidId(e.from)} -->|${e.rel}| ${mermaidId(e.to)}`)
  lines.push('  classDef promoted fill:#d4f7d4,stroke:#2a2', '  classDef supported fill:#e6f4ff,stroke:#27c', '  classDef contradicted fill:#fde2e2,stroke:#c33', '  classDef retired fill:#eee,stroke:#999,color:#666', '  classDef needs_retry fill:#fff4d6,stroke:#c90')
  return `${lines.join('\n')}\n`
}

function dotText(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`
}

const DOT_SHAPE: Record<GraphNode['kind'], string> = {hypothesis: 'ellipse', proposal: 'box', evaluation: 'parallelogram', decision: 'diamond', commit: 'circle'}

/** Graphviz DOT. */
export function toDot(g: EvidenceGraph): string {
  const lines = ['digraph evidence {', '  rankdir=LR;']
  for (const n of g.nodes) lines.push(`  ${dotText(n.id)} [label=${dotText(caption(n))}, shape=${DOT_SHAPE[n.kind]}${n.status === 'contradicted' || n.verdict === 'reject' ? ', color=red' : n.status === 'promoted' ? ', color=darkgreen' : ''}];`)
  for (const e of g.edges) lines.push(`  ${dotText(e.from)} -> ${dotText(e.to)} [label=${dotText(e.rel)}];`)
  lines.push('}')
  return `${lines.join('\n')}\n`
}

export function renderGraph(g: EvidenceGraph, format: GraphFormat): string {
  return format === 'json' ? `${JSON.stringify(g, null, 2)}\n` : format === 'mermaid' ? toMermaid(g) : toDot(g)
}
