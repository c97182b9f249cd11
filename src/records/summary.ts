import type {ExpRecord} from './types.js'

const MAX = 72

function clip(s: string): string {
  const one = s.replace(/\s+/g, ' ').trim()
  return one.length > MAX ? `${one.slice(0, MAX - 1)}…` : one
}

/** One line describing a record, used as the commit subject `<kind>: <summary>`. */
export function summarize(r: ExpRecord): string {
  switch (r.kind) {
    case 'manifest': return clip(`${r.body.purpose} ${r.body.split} with ${r.body.agent.name} on ${r.body.skill.name}`)
    case 'trace': return clip(`${r.body.scenario} #${r.body.repetition} ${r.body.status}`)
    case 'verification': return clip(`${r.body.scenario} #${r.body.repetition ?? 0} ${r.body.valid ? (r.body.passed ? 'passed' : 'failed') : 'invalid'}`)
    case 'evaluation': return clip(`${r.body.split} ${r.body.passed}/${r.body.total} (${(r.body.success_rate * 100).toFixed(1)}%)`)
    case 'evidence': return clip(r.body.signature)
    case 'knowledge': return clip(`${r.body.slug}: ${r.body.claim.text}`)
    case 'hypothesis': return clip(r.body.statement)
    case 'recall': return clip(`${r.body.items.length} items for ${r.body.purpose}`)
    case 'proposal': return clip(`${r.body.skill}: ${r.body.reason}`)
    case 'decision': return clip(`${r.body.verdict} ${r.body.proposal}`)
    case 'claim': return clip(`${r.body.hypothesis} by ${r.body.holder}`)
    case 'release': return clip(`${r.body.hypothesis} by ${r.body.holder}`)
    case 'note': return clip(r.body.text)
    case 'attempt': return clip(`${r.body.contract.name} #${r.body.ordinal} on ${r.body.branch}`)
    case 'observation': return clip(`${r.body.contract.name} ${r.body.split} #${r.body.repetition}${r.body.retry ? ` retry ${r.body.retry}` : ''} ${r.body.ran ? (r.body.timed_out ? 'timed out' : `exit ${r.body.exit_code ?? r.body.signal}`) : 'not run'}`)
    case 'verdict': return clip(`${r.body.contract.name} ${r.body.split} #${r.body.repetition} ${r.body.outcome}${r.body.metric ? ` ${r.body.metric.name}=${r.body.metric.value}` : ''}${r.body.needs_retry ? ` needs_retry (${r.body.needs_retry.stop_reason})` : ''}`)
  }
}
