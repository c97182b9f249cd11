import type {ResultSchema} from '../knowledge/index.js'
import type {View} from './types.js'

/**
 * "A record that contradicts the task", detected without knowing the domain: the miner
 * learns, per tool, which values each top-level field of its results takes across the
 * trace set (departments, roles, managers… whatever the records hold). A record contradicts
 * its task when the task text mentions known values of one of the record's fields and the
 * record holds none of them anywhere — e.g. the task names a team or a manager, and the
 * record names another (a task naming two people names two values of `name`: a record holding
 * one of them agrees).
 */
const norm = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim()
// shorter values ("it", "a") collide with ordinary words of a task
const MIN_CHARS = 3

interface Mention {
  field: string
  value: string
  at: number
  end: number
}

export class Vocabulary {
  /** tool → field → normalized values; `scalar` marks fields that hold one string */
  private readonly fields = new Map<string, Map<string, {scalar: boolean; values: Set<string>}>>()

  /** tool → the JSON Schema of its result, when the tool catalog declares one */
  private readonly schemas = new Map<string, ResultSchema>()

  static learn(views: readonly View[], tools: readonly {name: string; returns?: ResultSchema}[] = []): Vocabulary {
    const v = new Vocabulary()
    for (const t of tools) if (t.returns) v.schemas.set(t.name, t.returns)
    for (const view of views) for (const c of view.calls) if (c.ok && isRecord(c.result)) v.add(c.tool, c.result)
    return v
  }

  private add(tool: string, rec: Record<string, unknown>): void {
    let byField = this.fields.get(tool)
    if (!byField) this.fields.set(tool, (byField = new Map()))
    for (const [k, x] of Object.entries(rec)) {
      const strings = typeof x === 'string' ? [x] : Array.isArray(x) ? x.filter((e): e is string => typeof e === 'string') : []
      if (!strings.length) continue
      let f = byField.get(k)
      if (!f) byField.set(k, (f = {scalar: typeof x === 'string', values: new Set()}))
      if (typeof x === 'string') f.scalar = true
      for (const s of strings) if (norm(s).length >= MIN_CHARS) f.values.add(norm(s))
    }
  }

  schemaOf(tool: string): ResultSchema | undefined {
    return this.schemas.get(tool)
  }

  /** Does this result of `tool` hold a value that the task text contradicts? */
  contradicts(tool: string, result: unknown, task: string): boolean {
    const byField = this.fields.get(tool)
    if (!byField || !isRecord(result)) return false
    const text = ` ${norm(task)} `
    const mentions: Mention[] = []
    for (const [field, f] of byField) {
      for (const value of f.values) {
        for (let at = text.indexOf(` ${value} `); at >= 0; at = text.indexOf(` ${value} `, at + 1)) mentions.push({field, value, at, end: at + value.length + 1})
      }
    }
    // "finance" inside "finance reports" is part of another value, not a mention of its own
    const own = mentions.filter(m => !mentions.some(o => o.value.length > m.value.length && o.at <= m.at && o.end >= m.end))
    const held = new Set<string>()
    for (const x of Object.values(result)) {
      if (typeof x === 'string') held.add(norm(x))
      else if (Array.isArray(x)) for (const e of x) if (typeof e === 'string') held.add(norm(e))
    }
    // a task may name several values of one field (two people, two teams): the record must hold one of them
    const fields = new Set(own.filter(m => byField.get(m.field)!.scalar && typeof result[m.field] === 'string').map(m => m.field))
    return [...fields].some(f => !own.some(m => m.field === f && held.has(m.value)))
  }
}

export function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x)
}
