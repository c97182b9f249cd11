/**
 * Tickets in the task's own words: the agent compares the problem it was told about with the
 * subjects of existing tickets (shared content words), instead of looking for a known topic.
 */
const STOP = new Set([
  'a', 'an', 'the', 'is', 'are', 'was', 'were', 'be', 'been', 'to', 'of', 'in', 'on', 'at', 'for', 'with', 'and', 'or', 'not', 'no', 'it', 'its', 'his', 'her', 'their', 'my', 'our', 'your',
  'this', 'that', 'these', 'those', 'every', 'again', 'still', 'since', 'from', 'by', 'please', 'ticket', 'says', 'said', 'say', 'reports', 'reported', 'keeps', 'keep', 'some', 'several', 'times',
  'time', 'day', 'days', 'does', 'do', 'did', 'has', 'have', 'had', 'can', 'cannot', 'will', 'would', 'there', 'here', 'about', 'after', 'before', 'him', 'them', 'she', 'he', 'they', 'we', 'i',
  'also', 'just', 'when', 'which', 'who', 'what', 'into', 'out', 'up', 'down', 'any', 'all', 'more', 'very', 'now', 'today', 'morning', 'afternoon', 'since', 'could', 'should', 'get', 'gets',
])

// one word for what is written as two: "log into" is a login
// and one word for a thing with several names (plain English, not a list of tasks)
const PHRASES: [RegExp, string][] = [
  [/\b(log|logs|logged|logging|sign|signs|signed|signing) ?(in|into|on)\b/g, 'login'], [/\bset ?up\b/g, 'setup'],
  [/\b(wi-?fi|wireless)\b/g, 'wifi'], [/\b(e-?mail|mailbox|inbox|mail)\b/g, 'email'], [/\b(screen|display)\b/g, 'monitor'],
  [/\b(notebook)\b/g, 'laptop'], [/\b(cellphone|mobile|smartphone)\b/g, 'phone'], [/\b(keycard|key card|access card)\b/g, 'badge'],
]
const plainWords = (text: string) => PHRASES.reduce((t, [re, w]) => t.replace(re, w), text.toLowerCase()).split(/[^a-z0-9]+/).filter(w => w.length >= 2 && !STOP.has(w))

/** Content words, lightly stemmed (`dropping` ~ `drop`, `keys` ~ `key`). */
export function contentWords(text: string): Set<string> {
  return new Set(plainWords(text).map(w => w.replace(/(ing|ed|es|s)$/, '').replace(/(.)\1$/, '$1') || w))
}

/** The share of a ticket's subject words that the problem also uses (0..1). */
export function overlap(problem: string, subject: string): number {
  const p = contentWords(problem)
  const s = contentWords(subject)
  if (!s.size) return 0
  let shared = 0
  for (const w of s) if (p.has(w)) shared++
  return shared / s.size
}

/** "The same subject": at least a third of the ticket's subject words, and at least one, are in the problem. */
export const SAME_SUBJECT = 1 / 3

export function sameProblem(problem: string, subject: string): boolean {
  return overlap(problem, subject) >= SAME_SUBJECT
}

/** A few words to search tickets with: the problem's longest content words. */
export function ticketQuery(problem: string): string {
  return [...new Set(plainWords(problem))].sort((a, b) => b.length - a.length || (a < b ? -1 : 1)).slice(0, 4).join(' ')
}

/** A subject line for a new ticket: the problem, trimmed. */
export function subjectOf(problem: string): string {
  const s = problem.replace(/^(that|about|for|to)\s+/i, '').replace(/[.!?;\s]+$/, '').trim()
  const line = s.length > 90 ? `${s.slice(0, 87).replace(/\s+\S*$/, '')}...` : s
  return line ? line[0]!.toUpperCase() + line.slice(1) : 'Problem reported'
}

// plain knowledge of what belongs where, used only to pick among the categories a tool offers
const HINTS: [RegExp, string][] = [
  [/\b(vpn|wifi|wi-fi|network|internet|connection)\b/, 'network'],
  [/\b(badge|door|desk|floor|office|building|parking|chair|room|key card)\b/, 'facilities'],
  [/\b(password|login|log in|sso|email|mailbox|quota|account|locked)\b/, 'accounts'],
  [/\b(access|permission|role)\b/, 'access'],
  [/\b(laptop|notebook|battery|keyboard|mouse|printer|monitor|screen|phone|headset|dock|charger|device|hardware)\b/, 'hardware'],
]

export function categoryOf(problem: string, allowed: readonly string[]): string | undefined {
  const lower = problem.toLowerCase()
  const named = allowed.find(c => new RegExp(`\\b${c}\\b`).test(lower))
  if (named) return named
  const hinted = HINTS.find(([re, c]) => allowed.includes(c) && re.test(lower))?.[1]
  return hinted ?? (allowed.includes('other') ? 'other' : undefined)
}
