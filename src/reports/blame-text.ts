import type {Blame, BlameLine} from '../projections/blame.js'
import {short} from './format.js'

function who(l: BlameLine): string {
  const v = l.version === undefined ? 'v?' : `v${l.version}`
  switch (l.origin) {
    case 'promotion': return `${v} ${l.unverified ? 'UNVERIFIED merge' : 'merge'} ${l.merge ? short(l.merge) : '(not merged on main)'} ${l.proposal} ${l.knowledge.join(',') || '-'}${l.match === 'proposal' ? '*' : ''}`
    case 'initial': return `${v} initial ${short(l.commit)}`
    case 'edit': return `${v} edit ${short(l.commit)}`
    case 'unknown': return `v? commit ${short(l.commit)}`
  }
}

/**
 * `exp blame` as text: who put each line there, then the line. A `*` after the knowledge
 * means no edit of the proposal has this exact line (e.g. a renumbered step): the ids are
 * all the proposal's knowledge.
 */
export function renderBlameText(b: Blame): string {
  const labels = b.lines.map(who)
  const width = Math.max(0, ...labels.map(l => l.length))
  const num = String(b.lines.length).length
  const head = `${b.path} on ${b.main.branch ?? 'main'} ${short(b.main.commit)} (${b.skill} v${b.main.version})`
  return [head, ...b.lines.map((l, i) => `${String(l.line).padStart(num)}  ${labels[i]!.padEnd(width)} | ${l.text}`)].join('\n')
}
