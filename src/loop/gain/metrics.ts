import type {Ledger} from '../../store/index.js'
import type {VerificationBody} from '../../records/types.js'
import {ruleKey} from '../../knowledge/index.js'

/** The supporting metrics of Experience Gain that can be computed offline (docs/compare.md), over one namespace's ledger. */
export interface SideMetrics {
  /** train runs of the stream, in ledger order */
  train_runs: number
  /** failures after the first train run that repeat a failure seen in an earlier one: same scenario, same broken invariants */
  repeated_failure_rate: number | null
  repeated_failures: number
  later_failures: number
  /** invalid episodes over all the namespace's episodes */
  invalid_rate: number
  episodes: number
  /** of the lessons recalled for proposals, the share each proposal cites (it used them); null: no proposal */
  recalled_cited_rate: number | null
  recalled: number
  cited: number
  /** hypotheses that test the same rules as an earlier one, over all hypotheses; null: none */
  hypothesis_redundancy: number | null
  hypotheses: number
}

const ratio = (a: number, b: number) => (b ? Math.round((a / b) * 1e6) / 1e6 : null)

function failureKey(v: VerificationBody): string {
  return `${v.scenario}\u0000${v.invariants.filter(i => !i.passed).map(i => i.id).sort().join(',')}\u0000${v.outcome}`
}

/**
 * Pure: the metrics of one side of `exp gain` (or any namespace) from its records. `trainRuns`:
 * the train runs in the order the side met them, a run met twice listed twice (the off side
 * meets the same experiment again when it runs a seed again: without memory nothing changed,
 * and every failure of it repeats); default: the namespace's train manifests in ledger order.
 */
export function sideMetrics(ledger: Ledger, trainRuns?: readonly string[]): SideMetrics {
  const train = trainRuns ?? ledger.select({kinds: ['manifest']}).filter(e => ledger.load<'manifest'>(e).body.split === 'train').map(e => e.id)
  const byRun = new Map<string, VerificationBody[]>()
  let episodes = 0
  let invalid = 0
  for (const e of ledger.select({kinds: ['verification']})) {
    const v = ledger.load<'verification'>(e).body as VerificationBody
    episodes++
    if (!v.valid) invalid++
    if (train.includes(v.manifest)) byRun.set(v.manifest, [...(byRun.get(v.manifest) ?? []), v])
  }
  const seen = new Set<string>()
  let repeated = 0
  let later = 0
  for (let i = 0; i < train.length; i++) {
    const fails = (byRun.get(train[i]!) ?? []).filter(v => v.valid && !v.passed)
    if (i > 0) {
      later += fails.length
      repeated += fails.filter(v => seen.has(failureKey(v))).length
    }
    for (const v of fails) seen.add(failureKey(v))
  }
  let recalled = 0
  let cited = 0
  for (const e of ledger.select({kinds: ['proposal']})) {
    const p = ledger.load<'proposal'>(e).body
    const r = p.recall ? ledger.get(p.recall) : undefined
    if (!r) continue
    const items = ledger.load<'recall'>(r).body.items.map(i => i.knowledge)
    recalled += items.length
    cited += items.filter(k => p.knowledge.includes(k)).length
  }
  const keys = new Set<string>()
  let hypotheses = 0
  let redundant = 0
  for (const e of ledger.select({kinds: ['hypothesis']})) {
    const h = ledger.load<'hypothesis'>(e).body
    // the same rules are the same hypothesis, whatever records stated them
    const rules = (h.knowledge ?? []).map(k => {
      const ke = ledger.get(k)
      const rule = ke ? ledger.load<'knowledge'>(ke).body.rule : undefined
      return rule ? ruleKey(rule) : k
    })
    const key = `${h.target?.skill ?? ''}\u0000${rules.sort().join('\u0000') || h.statement}`
    hypotheses++
    if (keys.has(key)) redundant++
    keys.add(key)
  }
  return {
    train_runs: train.length,
    repeated_failure_rate: ratio(repeated, later),
    repeated_failures: repeated,
    later_failures: later,
    invalid_rate: ratio(invalid, episodes) ?? 0,
    episodes,
    recalled_cited_rate: ratio(cited, recalled),
    recalled,
    cited,
    hypothesis_redundancy: ratio(redundant, hypotheses),
    hypotheses,
  }
}
