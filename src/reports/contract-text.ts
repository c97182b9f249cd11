import type {ContractProvenance} from '../projections/contract-provenance.js'
import {short} from './format.js'

const fmt = (x: number | undefined) => (x === undefined ? '-' : String(x))

/** `exp provenance CONTRACT` as text: one block per version of the contract's editable files, then the rejected attempts. */
export function renderContractProvenance(p: ContractProvenance): string {
  const out = [`contract ${p.contract} on ${p.main.branch ?? 'main'} ${short(p.main.commit)} is v${p.main.version}`, '']
  for (const v of p.versions) {
    if (v.origin === 'initial') {
      out.push(`v${v.version}  initial, commit ${short(v.commit)}`)
      continue
    }
    out.push(`v${v.version}  ${v.unverified ? 'UNVERIFIED merge' : 'promoted by merge'} ${short(v.commit)} (${v.attempt?.id ?? v.missing.join(' ')})`)
    if (v.unverified) out.push(`  not a promotion: ${v.unverified}`)
    if (v.attempt) out.push(`  attempt #${v.attempt.ordinal} on lane ${v.attempt.lane}${v.attempt.reason ? `: ${v.attempt.reason}` : ''}${v.attempt.hypothesis ? ` (hypothesis ${v.attempt.hypothesis})` : ''}`)
    if (v.dev) out.push(`  dev ${fmt(v.dev.baseline)} -> ${fmt(v.dev.mean)}; held-out ${fmt(v.holdout?.baseline)} -> ${fmt(v.holdout?.mean)}`)
    if (v.decision) out.push(`  decision ${v.decision.id}: ${v.decision.verdict.toUpperCase()}`)
    if (v.missing.length) out.push(`  not in this clone: ${v.missing.join(' ')}`)
  }
  if (p.rejected.length) {
    out.push('', `rejected (${p.rejected.length}):`)
    for (const r of p.rejected) out.push(`  #${r.ordinal} ${r.id} (${r.lane})${r.reason ? ` ${r.reason}` : ''}: ${r.why}`)
  }
  return out.join('\n')
}
