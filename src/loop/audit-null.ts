/**
 * Null candidates for the A/A audit of the gate (`exp audit-gate`): changes to a SKILL.md
 * that leave what it asks of the agent as it was, so a promotion of one is a false promotion.
 * - `no-op`: trailing whitespace on the last line;
 * - `rewording`: a word of a prose line (no backticks: no rule) replaced by a synonym;
 * - `shuffle`: the rule lines (list items with a backticked tool) rotated among their own
 *   places, numbers kept; without two rules, the items of a list.
 * Each is a pure function of the text and the trial number, so trials differ from each other
 * and an audit can be run again to the same result.
 */
export type NullKind = 'no-op' | 'rewording' | 'shuffle'

export const NULL_KINDS: readonly NullKind[] = ['no-op', 'rewording', 'shuffle']

const SYNONYMS: readonly [RegExp, string][] = [
  [/\bLook up\b/, 'Find'],
  [/\bHand out\b/, 'Give out'],
  [/\btake back\b/, 'collect'],
  [/\bremove\b/, 'withdraw'],
  [/\bOpen\b/, 'Create'],
  [/\bMark\b/, 'Record'],
  [/\bkeep\b/, 'maintain'],
  [/\bneed\b/, 'require'],
  [/\bwhen\b/, 'once'],
  [/\bexplain\b/, 'describe'],
  [/\bGet\b/, 'Provide'],
  [/\bmentioned\b/, 'named'],
  [/\bup to date\b/, 'current'],
  [/\bthe next\b/, 'the following'],
  [/\bmust\b/, 'has to'],
  [/\bshould\b/, 'ought to'],
]

const ITEM = /^(\s*(?:\d+[.)]|[-*+])\s+)(.*)$/

/** Lines that are Markdown body, not frontmatter. */
function bodyStart(lines: readonly string[]): number {
  if (lines[0]?.trim() !== '---') return 0
  const end = lines.indexOf('---', 1)
  return end < 0 ? 0 : end + 1
}

function noop(text: string, trial: number): string {
  const pad = ' '.repeat(1 + (trial % 8))
  return text.endsWith('\n') ? `${text.slice(0, -1)}${pad}\n` : `${text}${pad}`
}

function reword(text: string, trial: number): string {
  const lines = text.split('\n')
  const prose = lines.map((l, i) => i).filter(i => i >= bodyStart(lines) && lines[i]!.trim() && !lines[i]!.includes('`') && !lines[i]!.trimStart().startsWith('#'))
  for (let k = 0; k < prose.length; k++) {
    const i = prose[(trial + k) % prose.length]!
    const hit = SYNONYMS.find(([re]) => re.test(lines[i]!))
    if (!hit) continue
    lines[i] = lines[i]!.replace(hit[0], hit[1])
    return lines.join('\n')
  }
  // nothing to reword: say the same thing twice, in other words
  return `${text.replace(/\n*$/, '')}\n\nThe steps above stay as they are.\n`
}

function shuffle(text: string, trial: number): string {
  const lines = text.split('\n')
  const start = bodyStart(lines)
  const items = lines.map((l, i) => i).filter(i => i >= start && ITEM.test(lines[i]!))
  const rules = items.filter(i => lines[i]!.includes('`'))
  const places = rules.length >= 2 ? rules : items
  if (places.length < 2) return noop(text, trial)
  const contents = places.map(i => ITEM.exec(lines[i]!)![2]!)
  const by = 1 + (trial % (places.length - 1))
  places.forEach((i, k) => {
    lines[i] = `${ITEM.exec(lines[i]!)![1]}${contents[(k + by) % contents.length]}`
  })
  return lines.join('\n')
}

/** The null candidate of `kind` for trial `trial`: never the text itself. */
export function nullVariant(text: string, kind: NullKind, trial: number): string {
  const out = kind === 'no-op' ? noop(text, trial) : kind === 'rewording' ? reword(text, trial) : shuffle(text, trial)
  return out === text ? noop(text, trial) : out
}
