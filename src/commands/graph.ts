import {Flags} from '../vendor/oclif.js'
import {ExpCommand} from '../cli/base.js'
import {plainText} from '../cli/plain.js'
import {writeStdout} from '../cli/broken-pipe.js'
import {withStore} from '../cli/context.js'
import {authorityOf} from '../cli/trust.js'
import {graph, renderGraph, GRAPH_FORMATS, type EvidenceGraph, type GraphFormat} from '../projections/index.js'

export default class Graph extends ExpCommand {
  static summary = 'The evidence graph: hypotheses, proposals, evaluations by split, decisions and merges.'
  static description = `The evidence graph of the public lanes (docs/frontier.md), negative evidence included. Public-safe: built from public lanes only, no trace contents, no absolute paths, secrets redacted; fit to paste into a pull request or a report.
--format mermaid or dot prints a diagram; json (the default) prints the graph itself.`
  static enableJsonFlag = true
  static jsonOutput = 'the evidence graph whatever --format says: {schema_version, as_of, nodes: [{id, kind, label, lane, status}], edges: [{from, to, rel}]}.'
  static examples = ['<%= config.bin %> graph', '<%= config.bin %> graph --format mermaid > evidence.mmd', '<%= config.bin %> graph --format dot | dot -Tsvg > evidence.svg']
  static flags = {
    format: Flags.string({description: 'output format', options: [...GRAPH_FORMATS], default: 'json'}),
  }

  async run(): Promise<EvidenceGraph> {
    const {flags} = await this.parse(Graph)
    if (this.jsonEnabled() && flags.format !== 'json') this.note(`--format ${flags.format} is not used with --json, which prints the graph itself: drop --json for the ${flags.format} diagram`)
    const g = await withStore(this.workDir, async store => {
      const authority = await authorityOf(store, this.workDir)
      const note = authority.ignoredNote()
      if (note) this.note(note)
      return graph(authority.ledger, {now: new Date(), env: process.env, admit: authority.admit})
    })
    // (a diagram is text for a person, holding other lanes' words: no escape sequence or bidi
    // control of theirs reaches the terminal, as in every other view)
    if (!this.jsonEnabled()) writeStdout(flags.format === 'json' ? renderGraph(g, 'json') : plainText(renderGraph(g, flags.format as GraphFormat)))
    return g
  }
}
