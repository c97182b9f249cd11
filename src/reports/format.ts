import {oneLine} from '../records/summary.js'

/** Small formatting helpers shared by the text, Markdown and HTML views. */
export const pct = (x: number) => `${(x * 100).toFixed(1)}%`
export const short = (oid: string) => oid.slice(0, 12)
export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`
/** A measured number for people: integers as they are, thousands grouped, fractions to two places (22767.8125 -> 22,767.81). */
export const num = (x: number) => {
  if (!Number.isFinite(x)) return String(x)
  const [whole, frac] = (Number.isInteger(x) ? String(x) : x.toFixed(2)).split('.')
  return `${whole!.replace(/\B(?=(\d{3})+$)/g, ',')}${frac ? `.${frac}` : ''}`
}

/**
 * Text a record holds (an attempt's reason, a proposed line, a note's field), inert in Markdown
 * inline content — a table cell, a list item, a heading: on one line (no newline can start a
 * heading or end a table row; control and bidirectional characters blanked) and with every
 * character that starts markup escaped (CommonMark lets any ASCII punctuation be), so it draws
 * no image, link, HTML, emphasis or table column. Another lane's records, an agent's words
 * and a model's drafts all reach the report.
 */
export const mdText = (s: string): string => oneLine(s).replace(/[\\`*_{}[\]()<>#+!|~&]/g, '\\$&')
