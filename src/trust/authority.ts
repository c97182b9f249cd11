import {citedEntry, type Ledger, type LedgerEntry} from '../store/index.js'
import type {Promotion} from '../projections/mainline.js'
import {checkDecision} from './decision.js'
import {checkEvaluation} from './evaluation.js'
import {checkPromotion} from './promotion.js'
import {checkVerdict} from './verdict.js'
import {signatureKey, type Standing, type TrustInput, type TrustProblem} from './types.js'

/** how deep standing() recurses through baselines before it walks the rest of a chain (Authority.standing) */
const RECURSE = 64

/** entries whose records the standing of many reads ahead at a time (a few MB of bodies) */
const PREFETCH = 2048

/**
 * The one place that says which evidence counts, for one ledger and one set of trust
 * inputs (docs/trust.md). Answers are memoized: a ledger never changes. Everything that
 * decides or shows a decision asks it; what does not stand is skipped, and `problems()`
 * lists it for `exp fsck`.
 */
export class Authority {
  private readonly memo = new Map<string, Standing>()
  /** how many standing() calls are on the stack (RECURSE) */
  private depth = 0

  constructor(readonly ledger: Ledger, readonly input: TrustInput) {}

  /**
   * Standing of an evaluation, decision or verdict record (anything else: not evidence): by id,
   * the copy every view shows; by entry, that copy (a record another record cites, looked up
   * on the citing record's lane: store/own.ts, citedEntry).
   */
  standing(x: string | LedgerEntry): Standing {
    const s = this.memo.get(this.keyOf(x))
    if (s) return s
    // a check asks for the standing of the baseline it rests on, and that one of its own: a few
    // levels recurse as they are; past RECURSE, the chain below is walked and decided deepest
    // first, so no check goes deeper than one more level (a lane can write a chain of thousands
    // of evaluations, each the next one's baseline: checked by recursion alone, it overflowed
    // the stack of every view that asks)
    if (this.depth < RECURSE) {
      this.depth++
      try {
        return this.check(x)
      } finally {
        this.depth--
      }
    }
    const chain: LedgerEntry[] = []
    const start = typeof x === 'string' ? this.ledger.get(x) : x
    const seen = new Set([this.keyOf(x)])
    for (let b = start && this.baselineOf(start); b !== undefined && !this.memo.has(this.keyOf(b)) && !seen.has(this.keyOf(b)); b = this.baselineOf(b)) {
      chain.push(b)
      seen.add(this.keyOf(b))
    }
    for (let i = chain.length - 1; i >= 0; i--) this.check(chain[i]!)
    return this.check(x)
  }

  /** the memo's key of a record: its id for the copy every view shows, its lane's copy apart */
  private keyOf(x: string | LedgerEntry): string {
    if (typeof x === 'string') return x
    return this.ledger.get(x.id) === x ? x.id : signatureKey(x)
  }

  private check(x: string | LedgerEntry): Standing {
    const key = this.keyOf(x)
    let s = this.memo.get(key)
    if (s) return s
    // a comparison citing itself through its baseline is cut here, not looped
    this.memo.set(key, {ok: false, class: 'inconsistent_evaluation', reason: 'its evidence cites itself'})
    const e = typeof x === 'string' ? this.ledger.get(x) : x
    const at = e ?? (x as string)
    const look = (y: string | LedgerEntry) => this.standing(y)
    s = e?.kind === 'decision' ? checkDecision(this.ledger, at, this.input, look) : e?.kind === 'verdict' ? checkVerdict(this.ledger, at, this.input, look) : checkEvaluation(this.ledger, at, this.input, look)
    this.memo.set(key, s)
    return s
  }

  /** The one record the standing of an evaluation or a verdict rests on as its baseline, if any (on its own lane first). */
  private baselineOf(e: LedgerEntry): LedgerEntry | undefined {
    let b: unknown
    if (e.kind === 'evaluation') b = (this.ledger.load<'evaluation'>(e).body as {comparison?: {baseline?: unknown}}).comparison?.baseline
    else if (e.kind === 'verdict') b = (this.ledger.load<'verdict'>(e).body as {baseline?: {verdict?: unknown}}).baseline?.verdict
    return typeof b === 'string' ? citedEntry(this.ledger, b, e) : undefined
  }

  counts(id: string): boolean {
    return this.standing(id).ok
  }

  /** `counts` as one stable function, for projections that memoize by it (IndexOptions.admit) */
  readonly admit = (id: string): boolean => this.counts(id)

  /** How many evaluations and decisions of the public ledger do not stand: a line for read commands to print. */
  ignoredNote(): string | undefined {
    let n = 0
    this.eachStanding(this.ledger.select({kinds: ['evaluation', 'decision', 'verdict'], includePrivate: false}), (_, s) => void (s.ok || n++))
    return n ? `note: ${n} evaluation(s) or decision(s) do not stand and were ignored (run \`exp fsck\` for the reasons)` : undefined
  }

  /**
   * The standing of each of many entries, in order: those not decided yet are read ahead a
   * chunk at a time (Ledger.withPrefetched), as each check loads its record alone.
   */
  private eachStanding(es: readonly LedgerEntry[], fn: (e: LedgerEntry, s: Standing) => void): void {
    for (let i = 0; i < es.length; i += PREFETCH) {
      const chunk = es.slice(i, i + PREFETCH)
      this.ledger.withPrefetched(chunk.filter(e => !this.memo.has(e.id)), () => {
        for (const e of chunk) fn(e, this.standing(e.id))
      })
    }
  }

  promotion(p: Promotion): Standing {
    const key = `merge:${p.commit}`
    let s = this.memo.get(key)
    if (!s) this.memo.set(key, (s = checkPromotion(this.ledger, p, x => this.standing(x))))
    return s
  }

  /** Every evaluation and decision of the ledger that does not stand (public and private lanes). */
  problems(): TrustProblem[] {
    const out: TrustProblem[] = []
    // one proposal or attempt, one verdict (decisionOf): a standing accept, else the first
    // standing reject; a decision that says otherwise is named (two promotions that raced, a copy)
    const decisions: LedgerEntry[] = []
    this.eachStanding(this.ledger.select({kinds: ['decision'], includePrivate: true}), (e, s) => void (s.ok && decisions.push(e)))
    // what each standing decision decides, read once, in batches (the pass below needs it again)
    const decides = new Map<string, {proposal: string; verdict: string}>()
    const ruling = new Map<string, {id: string; verdict: string}>()
    for (let i = 0; i < decisions.length; i += PREFETCH) {
      const chunk = decisions.slice(i, i + PREFETCH)
      this.ledger.loadAll<'decision'>(chunk).forEach(({body: d}, k) => {
        const id = chunk[k]!.id
        decides.set(id, {proposal: d.proposal, verdict: d.verdict})
        const was = ruling.get(d.proposal)
        if (!was || (was.verdict === 'reject' && d.verdict === 'accept')) ruling.set(d.proposal, {id, verdict: d.verdict})
      })
    }
    this.eachStanding(this.ledger.select({kinds: ['evaluation', 'decision', 'verdict'], includePrivate: true}), (e, s) => {
      if (!s.ok) out.push({class: s.class, id: e.id, lane: e.lane, ref: e.ref, commit: e.commit, reason: s.reason})
      else if (e.kind === 'decision') {
        // (a standing decision was standing above: its answer is memoized)
        const d = decides.get(e.id) ?? this.ledger.load<'decision'>(e).body
        const was = ruling.get(d.proposal)!
        if (was.verdict !== d.verdict) out.push({class: 'conflicting_decision', id: e.id, lane: e.lane, ref: e.ref, commit: e.commit, reason: `${d.proposal} was decided ${was.verdict} by ${was.id}, which counts (a standing accept, else the first standing reject): not this ${d.verdict}`})
      }
    })
    return out
  }

  /** Merges on main that are not promotions an accept decision stands behind. */
  promotionProblems(promotions: readonly Promotion[]): TrustProblem[] {
    return promotions.flatMap(p => {
      const s = this.promotion(p)
      return s.ok ? [] : [{class: s.class, id: p.proposal, commit: p.commit, reason: `merge ${p.commit.slice(0, 12)} promotes ${p.proposal}: ${s.reason}`}]
    })
  }
}
