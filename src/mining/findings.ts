import type {EvidenceBody} from '../records/types.js'
import {STATE_FIELD, STATES, reportsState} from './shapes.js'
import type {Call, View} from './types.js'

/**
 * Findings that are not (yet) rules: what failing runs have in common.
 * - failure_mode: `T` failed with `CODE`, in failing runs more often than in passing ones;
 * - bad_sequence: two calls back to back that only failing runs make (each call alone also
 *   appears in passing runs, so it is the order or the pairing that is wrong);
 * - termination_failure: an action completed while its result reported an open state, in
 *   failing runs only (a `Never … while` rule is proposed in rules.ts when runs show the cure).
 */
export type Finding = Pick<EvidenceBody, 'pattern' | 'signature' | 'description' | 'tools' | 'supporting' | 'counterexamples'>

const label = (c: Call) => (c.ok ? c.tool : `${c.tool}!${c.code ?? 'ERROR'}`)

export function failureFindings(views: readonly View[], minSupport: number): Finding[] {
  const out: Finding[] = []
  const groups = new Map<string, {tools: string[]; what: string; pass: Set<string>; fail: Set<string>; before: Map<string, number>}>()
  const note = (key: string, tools: string[], what: string, v: View, prior?: string) => {
    let g = groups.get(key)
    if (!g) groups.set(key, (g = {tools, what, pass: new Set(), fail: new Set(), before: new Map()}))
    ;(v.passed ? g.pass : g.fail).add(v.id)
    if (prior && !v.passed) g.before.set(prior, (g.before.get(prior) ?? 0) + 1)
  }
  const inPassing = new Set(views.filter(v => v.passed).flatMap(v => v.calls.map(label)))
  for (const v of views) {
    v.calls.forEach((c, x) => {
      const prior = x ? v.calls[x - 1]!.tool : undefined
      if (!c.ok) note(`failure_mode:${label(c)}`, [c.tool], `\`${c.tool}\` failed with \`${c.code}\``, v, prior)
      for (const s of STATES) if (c.wrote && reportsState(s, c)) note(`termination_failure:never:${c.tool}~${s}`, [c.tool], `\`${c.tool}\` went through while \`${STATE_FIELD[s]}\` > 0`, v, prior)
      const next = v.calls[x + 1]
      if (next && inPassing.has(label(c)) && inPassing.has(label(next))) note(`bad_sequence:${label(c)}>${label(next)}`, [...new Set([c.tool, next.tool])].sort(), `\`${label(c)}\` directly followed by \`${label(next)}\``, v)
    })
  }
  const why = failureSummary(views)
  for (const [signature, g] of groups) {
    const pattern = signature.slice(0, signature.indexOf(':')) as Finding['pattern']
    const fail = [...g.fail].sort()
    const pass = [...g.pass].sort()
    if (fail.length < minSupport) continue
    // a sequence or a termination that passing runs also show is not what went wrong
    if (pattern !== 'failure_mode' && pass.length) continue
    if (pattern === 'failure_mode' && pass.length >= fail.length) continue
    const after = [...g.before].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))[0]
    const description = `${g.what} in ${fail.length} failing run(s) and ${pass.length} passing run(s)${after ? `, most often right after \`${after[0]}\` (${after[1]})` : ''}. ${why(fail)}`
    out.push({pattern, signature, description: description.trim(), tools: g.tools, supporting: fail, counterexamples: pass})
  }
  return out
}

/** "Those runs failed on: a (3), b (2)": the grader's reasons, most frequent first. */
function failureSummary(views: readonly View[]): (ids: readonly string[]) => string {
  const byId = new Map(views.map(v => [v.id, v]))
  return ids => {
    const n = new Map<string, number>()
    for (const id of ids) for (const f of byId.get(id)?.failures ?? []) n.set(f, (n.get(f) ?? 0) + 1)
    const top = [...n].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1)).slice(0, 4)
    return top.length ? `Those runs failed on: ${top.map(([f, k]) => `${f} (${k})`).join(', ')}.` : ''
  }
}
