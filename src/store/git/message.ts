import type {ExpRecord} from '../../records/index.js'
import {summarize, oneLine} from '../../records/index.js'

/** Trailers that let plain `git log` index the ledger (docs/store.md). */
export interface RecordTrailers {
  record?: {kind: string; id: string}
  schema?: string
  lamport?: number
  cites: string[]
}

export function recordMessage(r: ExpRecord): string {
  // the subject is clipped to one line of printable text whatever the record holds; the
  // trailer values are ids, tags and numbers the envelope schema already restricts
  const lines = [oneLine(`${r.kind}: ${summarize(r)}`), '', `Exp-Record: ${r.kind}/${r.id}`, `Exp-Schema: ${r.schema}`, `Exp-Lamport: ${r.lamport}`]
  if (r.cites.length) lines.push(`Exp-Cites: ${r.cites.join(' ')}`)
  return `${lines.join('\n')}\n`
}

/** The trailers of a lane commit, parsed once however many readers ask (kept on the commit). */
export function trailersOf(c: {message: string; trailers?: RecordTrailers}): RecordTrailers {
  return (c.trailers ??= parseTrailers(c.message))
}

/** Read the Exp-* trailers of a commit message (last paragraph, `Key: value` lines). */
export function parseTrailers(message: string): RecordTrailers {
  const out: RecordTrailers = {cites: []}
  // only lines that start with `Exp-` can match: found by search rather than by splitting every line
  const next = (from: number) => {
    const i = message.indexOf('\nExp-', from)
    return i < 0 ? -1 : i + 1
  }
  for (let at = message.startsWith('Exp-') ? 0 : next(0); at >= 0; ) {
    const nl = message.indexOf('\n', at)
    const line = nl < 0 ? message.slice(at) : message.slice(at, nl)
    at = nl < 0 ? -1 : next(nl)
    const m = /^(Exp-[A-Za-z]+):\s*(.*)$/.exec(line)
    if (!m) continue
    const v = m[2]!.trim()
    switch (m[1]) {
      case 'Exp-Record': {
        const slash = v.indexOf('/')
        if (slash > 0) out.record = {kind: v.slice(0, slash), id: v.slice(slash + 1)}
        break
      }
      case 'Exp-Schema': out.schema = v; break
      case 'Exp-Lamport': out.lamport = Number(v); break
      case 'Exp-Cites': out.cites = v ? v.split(/\s+/) : []; break
    }
  }
  return out
}
