import {escapeUnsafe} from '../records/index.js'
import type {Provenance, ProposalChain, VersionProvenance} from '../projections/provenance.js'
import {TRACES_SHOWN} from './provenance-text.js'
import {pct, short} from './format.js'
import {ruleText} from './rule-text.js'

/** Mermaid node ids: letters, digits and `_` only. */
const nid = (id: string) => id.replace(/[^A-Za-z0-9]/g, '_')

/** A label inside `["…"]`: mermaid's entity codes for what would end or break it. */
export function mermaidLabel(text: string): string {
  // (a lone CR or U+2028/9 ends a line in Markdown as a newline does; other control characters are shown escaped)
  return escapeUnsafe(text.replace(/\r\n?|\u2028|\u2029/g, '\n')).replace(/&/g, '#amp;').replace(/"/g, '#quot;').replace(/</g, '#lt;').replace(/>/g, '#gt;').replace(/`/g, "'").replace(/\n/g, '<br/>')
}

class Graph {
  private nodes = new Map<string, string>()
  private edges = new Set<string>()

  node(id: string, label: string, cls?: string): string {
    const k = nid(id)
    if (!this.nodes.has(k)) this.nodes.set(k, `  ${k}["${mermaidLabel(label)}"]${cls ? `:::${cls}` : ''}`)
    return k
  }

  edge(a: string, b: string, dotted = false): void {
    this.edges.add(`  ${a} ${dotted ? '-.->' : '-->'} ${b}`)
  }

  render(): string {
    const classes = ['  classDef failure fill:#fde2e1,stroke:#c0392b', '  classDef accept fill:#e3f4e1,stroke:#2e7d32', '  classDef reject fill:#f6e0e0,stroke:#8e2c2c', '  classDef version fill:#e6eefc,stroke:#2c5aa0']
    return ['flowchart LR', ...this.nodes.values(), ...this.edges, ...classes].join('\n')
  }
}

/** failing traces → evidence → knowledge → recall → proposal → evaluations → decision, added to `g`; returns the decision's node (or the proposal's). */
function addChain(g: Graph, c: ProposalChain): string {
  const p = c.proposal
  const pr = g.node(p.id, `proposal ${p.id}\nv${p.base.version ?? '?'} -> v${p.head.version ?? '?'}, +${p.size.added} -${p.size.removed}`)
  const rc = c.recall ? g.node(c.recall.id, `recall ${c.recall.id}\n${c.recall.used.items} item(s)`) : undefined
  if (rc) g.edge(rc, pr)
  for (const k of c.knowledge) {
    const kn = g.node(k.id, `knowledge ${k.id}\n${k.slug || '(not in this clone)'}`)
    g.edge(kn, rc ?? pr)
    for (const e of k.evidence) {
      const ed = g.node(e.id, `evidence ${e.id}\n${e.missing ? '(not in this clone)' : ruleText(e)}`)
      g.edge(ed, kn)
      const failed = e.traces.filter(t => t.outcome === 'failed')
      for (const t of failed.slice(0, TRACES_SHOWN)) g.edge(g.node(t.id, `failed trace ${t.id}\n${t.scenario ?? ''}`, 'failure'), ed)
      if (failed.length > TRACES_SHOWN) g.edge(g.node(`${e.id}_more`, `+${failed.length - TRACES_SHOWN} more failing traces`, 'failure'), ed)
    }
    for (const t of k.runs.filter(x => x.outcome === 'failed').slice(0, TRACES_SHOWN)) g.edge(g.node(t.id, `failed trace ${t.id}\n${t.scenario ?? ''}`, 'failure'), kn)
  }
  const d = c.decision
  const dc = d ? g.node(d.id, `decision ${d.id}\n${d.verdict.toUpperCase()}`, d.verdict) : undefined
  for (const e of c.evaluations) {
    const el = g.node(e.id, `${e.split} ${e.role ?? 'run'}\n${pct(e.success_rate)}`)
    g.edge(pr, el)
    if (dc) g.edge(el, dc)
  }
  if (dc && !c.evaluations.length) g.edge(pr, dc)
  return dc ?? pr
}

/**
 * `exp provenance --format mermaid`: one flowchart of every version's chain, left to right
 * from the failing traces to the merge commit; a dotted edge runs from each version to the
 * proposal made on it. `rejected` adds the chains of rejected proposals (the report does).
 */
export function renderMermaid(p: Provenance, rejected: readonly ProposalChain[] = []): string {
  const g = new Graph()
  const versionNode = new Map<string, string>()
  for (const v of p.versions) {
    const k = g.node(`${v.skill}_v${v.version}`, `${v.skill} v${v.version}\n${v.origin === 'initial' ? 'initial' : 'merge'} ${short(v.commit)}`, 'version')
    versionNode.set(String(v.version), k)
    if (v.proposal) g.edge(addChain(g, v as VersionProvenance & ProposalChain), k)
  }
  for (const c of rejected) addChain(g, c)
  // lineage: each proposal hangs off the version it was made on
  for (const c of [...p.versions.filter(v => v.proposal).map(v => v as VersionProvenance & ProposalChain), ...rejected]) {
    const base = versionNode.get(c.proposal.base.version ?? '')
    if (base) g.edge(base, nid(c.proposal.id), true)
  }
  return g.render()
}
