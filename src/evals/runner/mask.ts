/**
 * Held-out task text kept out of records (docs/trust.md). Agents copy a task into tool
 * arguments (a ticket's description), tools echo it back, graders quote it in diffs: every
 * occurrence of the task, or of one of its sentences, becomes a token in what is recorded.
 * Reversible only with the task itself, i.e. with the sealed split's key: replay puts the
 * text back, runs, and masks the result again to compare.
 */
export interface TaskMask {
  mask<T>(value: T): T
  unmask<T>(value: T): T
}

const token = (i: number) => `\u27e6sealed-task:${i}\u27e7`

export function taskMask(task: string): TaskMask {
  const whole = task.trim()
  const sentences = whole.split(/(?<=[.!?])\s+|\n+/).map(s => s.trim()).filter(s => s.length >= 12)
  const pieces = [...new Set([whole, ...sentences])].filter(Boolean).sort((a, b) => b.length - a.length)
  const mask = (s: string) => pieces.reduce((acc, p, i) => (acc.includes(p) ? acc.split(p).join(token(i)) : acc), s)
  const unmask = (s: string) => (s.includes('\u27e6sealed-task:') ? pieces.reduce((acc, p, i) => acc.split(token(i)).join(p), s) : s)
  return {mask: v => deep(v, mask), unmask: v => deep(v, unmask)}
}

function deep<T>(value: T, f: (s: string) => string): T {
  if (typeof value === 'string') return f(value) as T
  if (Array.isArray(value)) return value.map(v => deep(v, f)) as T
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, deep(v, f)])) as T
  return value
}
