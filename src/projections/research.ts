import type {FactsByKind, FactKind} from '../records/index.js'
import type {Ledger, LedgerEntry} from '../store/index.js'
import {ownMeasurement} from '../attempts/keys.js'

/** A record linked to a hypothesis, with its indexed facts and its position in ledger order. */
export interface Linked<K extends FactKind = FactKind> {
  entry: LedgerEntry & {kind: K}
  facts: FactsByKind[K]
  pos: number
  /** evaluations only: linked through a cite of the hypothesis, with no proposal recorded for it */
  noProposal?: boolean
}

export type AnyLinked = {[K in FactKind]: Linked<K>}[FactKind]

export interface HypothesisNode {
  self: Linked<'hypothesis'>
  /** every record about it, in ledger order */
  events: AnyLinked[]
}

export interface ResearchIndex {
  ledger: Ledger
  /** in ledger order */
  hypotheses: Map<string, HypothesisNode>
  proposals: Map<string, Linked<'proposal'> & {hypothesis?: string}>
  evaluations: Map<string, Linked<'evaluation'>>
  /** attempts of research contracts (baselines left out), and the hypothesis each tests */
  attempts: Map<string, Linked<'attempt'> & {hypothesis?: string}>
  /** verdicts of the command evaluator, by id */
  verdicts: Map<string, Linked<'verdict'>>
  /** records naming a hypothesis that is not in the (public) ledger (`as`: the field that names it, where it is not the record's own hypothesis: a hypothesis' `parent`) */
  dangling: {linked: AnyLinked; hypothesis: string; as?: 'parent'}[]
  /** evaluations, decisions and verdicts left out because `admit` refused them (evidence that does not stand), and verdicts of an attempt written on another lane than its own */
  ignored: LedgerEntry[]
}

export interface IndexOptions {
  /**
   * Include records of private lanes. Off by default: private refs are never synced, so a
   * projection that read them would differ between clones with the same public refs.
   */
  includePrivate?: boolean
  /**
   * Which evaluations and decisions count (docs/trust.md: an Authority's `counts`). Others
   * are left out of every status, frontier and graph, and listed in `ignored`.
   */
  admit?: (id: string) => boolean
}

const LINKED_KINDS = new Set(['proposal', 'evaluation', 'decision', 'claim', 'release', 'note', 'attempt', 'verdict'])

/**
 * Join the research records of a ledger by hypothesis, from the ledger index alone (kind,
 * cites and facts): no record body is parsed. Two passes, so that a record seen before
 * the proposal it names (an illegal order, reported by transitions.ts) is still linked.
 */
export function researchIndex(ledger: Ledger, opts: IndexOptions = {}): ResearchIndex {
  // a ledger never changes, and the store hands out the same one while no lane moves: the
  // index is built once per ledger (and privacy), and only read after that
  const key = opts.includePrivate === true ? 'all' : 'public'
  const owner: object = opts.admit ?? ledger
  let byLedger = built.get(owner)
  if (!byLedger) built.set(owner, (byLedger = new WeakMap()))
  let memo = byLedger.get(ledger)
  if (!memo) byLedger.set(ledger, (memo = {}))
  return (memo[key] ??= buildIndex(ledger, opts))
}

const built = new WeakMap<object, WeakMap<Ledger, {all?: ResearchIndex; public?: ResearchIndex}>>()

function buildIndex(ledger: Ledger, opts: IndexOptions): ResearchIndex {
  const hypotheses = new Map<string, HypothesisNode>()
  const proposals: ResearchIndex['proposals'] = new Map()
  const evaluations: ResearchIndex['evaluations'] = new Map()
  const attempts: ResearchIndex['attempts'] = new Map()
  const verdicts: ResearchIndex['verdicts'] = new Map()
  const dangling: ResearchIndex['dangling'] = []
  const ignored: LedgerEntry[] = []
  const entries = ledger.entries
  const all = opts.includePrivate === true
  // pass 1: the things others link to (plain loops: this runs over every entry of the ledger)
  for (let pos = 0; pos < entries.length; pos++) {
    const e = entries[pos]!
    if (e.private && !all) continue
    if (e.kind === 'hypothesis') hypotheses.set(e.id, {self: {entry: e as Linked<'hypothesis'>['entry'], facts: ledger.facts(e as Linked<'hypothesis'>['entry']), pos}, events: []})
    else if (e.kind === 'proposal') {
      const facts = ledger.facts(e as Linked<'proposal'>['entry'])
      proposals.set(e.id, {entry: e as Linked<'proposal'>['entry'], facts, pos, hypothesis: facts.hypothesis})
    } else if (e.kind === 'attempt') {
      const facts = ledger.facts(e as Linked<'attempt'>['entry'])
      if (facts.ordinal > 0) attempts.set(e.id, {entry: e as Linked<'attempt'>['entry'], facts, pos, hypothesis: facts.hypothesis})
    }
  }
  // a hypothesis refines its parent (exp graph's `refines` edge): one that is no hypothesis here dangles
  for (const h of hypotheses.values()) {
    const parent = h.self.facts.parent
    if (parent !== undefined && !hypotheses.has(parent)) dangling.push({linked: h.self as AnyLinked, hypothesis: parent, as: 'parent'})
  }
  // a proposal that names no hypothesis in its body is linked through what it cites
  for (const p of proposals.values()) p.hypothesis ??= p.entry.cites.find(c => hypotheses.has(c))
  const link = (l: AnyLinked, hyp: string | undefined) => {
    if (hyp === undefined) return
    const node = hypotheses.get(hyp)
    if (node) node.events.push(l)
    else dangling.push({linked: l, hypothesis: hyp})
  }
  // pass 2: everything about a hypothesis, appended in ledger order
  for (let pos = 0; pos < entries.length; pos++) {
    const e = entries[pos]!
    if (!LINKED_KINDS.has(e.kind) || (e.private && !all)) continue
    if (opts.admit && (e.kind === 'evaluation' || e.kind === 'decision' || e.kind === 'verdict') && !opts.admit(e.id)) {
      ignored.push(e)
      continue
    }
    if (e.kind === 'proposal') {
      const p = proposals.get(e.id)!
      link(p as AnyLinked, p.hypothesis)
      continue
    }
    if (e.kind === 'attempt') {
      const a = attempts.get(e.id)
      if (a) link(a as AnyLinked, a.hypothesis)
      continue
    }
    const l = {entry: e, facts: ledger.facts(e)!, pos} as AnyLinked
    switch (l.entry.kind) {
      case 'claim':
      case 'release':
        link(l, (l.facts as FactsByKind['claim']).hypothesis)
        break
      case 'decision': {
        const f = l.facts as FactsByKind['decision']
        link(l, f.hypothesis ?? proposals.get(f.proposal)?.hypothesis ?? attempts.get(f.proposal)?.hypothesis)
        break
      }
      case 'verdict': {
        const f = l.facts as FactsByKind['verdict']
        const a = attempts.get(f.attempt)
        // an attempt's own lane's only (attempts/keys.ts, ownMeasurement): another lane's
        // verdicts of it, the latest per repetition (status.ts), turned its hypothesis over
        if (a && !ownMeasurement(ledger, e, a.entry, a.facts)) {
          ignored.push(e)
          continue
        }
        verdicts.set(e.id, l as Linked<'verdict'>)
        link(l, a?.hypothesis)
        break
      }
      case 'note': {
        const f = l.facts as FactsByKind['note']
        if (f.action === 'retire' || f.action === 'reopen') for (const h of f.about ?? []) if (h.startsWith('hy-')) link(l, h)
        break
      }
      case 'evaluation': {
        const f = l.facts as FactsByKind['evaluation']
        evaluations.set(e.id, l as Linked<'evaluation'>)
        const viaProposal = f.proposal === undefined ? undefined : proposals.get(f.proposal)?.hypothesis
        if (viaProposal) link(l, viaProposal)
        else {
          const cited = e.cites.find(c => hypotheses.has(c))
          if (cited) link({...l, noProposal: true} as AnyLinked, cited)
        }
      }
    }
  }
  return {ledger, hypotheses, proposals, evaluations, attempts, verdicts, dangling, ignored}
}
