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

/** A trie of the words of the values one tool's results take: where a value ends, the fields holding it. */
interface Node {
  next: Map<string, Node>
  fields?: string[]
}

interface Mention {
  field: string
  value: string
  /** the words of the task text it spans, [from, to) */
  from: number
  to: number
}

export class Vocabulary {
  /** tool → field → normalized values; `scalar` marks fields that hold one string */
  private readonly fields = new Map<string, Map<string, {scalar: boolean; values: Set<string>}>>()

  /** tool → the JSON Schema of its result, when the tool catalog declares one */
  private readonly schemas = new Map<string, ResultSchema>()

  /** tool → the words of its values (built on first use, once every value is learned) */
  private readonly tries = new Map<string, Node>()

  /** tool and task text → field → the values of the field the text mentions on their own */
  private readonly mentioned = new Map<string, Map<string, Set<string>>>()

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
      for (const s of strings) {
        const n = norm(s)
        if (n.length >= MIN_CHARS) f.values.add(n)
      }
    }
  }

  schemaOf(tool: string): ResultSchema | undefined {
    return this.schemas.get(tool)
  }

  /** Does this result of `tool` hold a value that the task text contradicts? */
  contradicts(tool: string, result: unknown, task: string): boolean {
    const byField = this.fields.get(tool)
    if (!byField || !isRecord(result)) return false
    const own = this.mentions(tool, byField, task)
    if (!own.size) return false
    const held = new Set<string>()
    for (const x of Object.values(result)) {
      if (typeof x === 'string') held.add(norm(x))
      else if (Array.isArray(x)) for (const e of x) if (typeof e === 'string') held.add(norm(e))
    }
    // a task may name several values of one field (two people, two teams): the record must hold one of them
    for (const [f, values] of own) {
      if (!byField.get(f)!.scalar || typeof result[f] !== 'string') continue
      if (![...values].some(m => held.has(m))) return true
    }
    return false
  }

  /**
   * The values of `tool`'s fields that the task text mentions, each on its own (not inside a
   * longer mentioned value), by field. Once per tool and text: every value of every field was
   * searched for in the text for each result judged (values × text length × results: four
   * runs of 500 calls, each result with values of its own, and a task text naming them took
   * 11.7 CPU seconds, now 0.07); now the text's words are walked through a trie of the values.
   */
  private mentions(tool: string, byField: Map<string, {scalar: boolean; values: Set<string>}>, task: string): Map<string, Set<string>> {
    const key = `${tool}\u0000${task}`
    const memo = this.mentioned.get(key)
    if (memo) return memo
    let root = this.tries.get(tool)
    if (!root) {
      root = {next: new Map()}
      for (const [field, f] of byField) {
        for (const value of f.values) {
          let node = root
          for (const w of value.split(' ')) {
            let n = node.next.get(w)
            if (!n) node.next.set(w, (n = {next: new Map()}))
            node = n
          }
          ;(node.fields ??= []).push(field)
        }
      }
      this.tries.set(tool, root)
    }
    // the text as norm() leaves it: words between single spaces; a value is mentioned where its words are, in order
    const words = norm(task).split(' ').filter(w => w)
    const mentions: Mention[] = []
    const widest = new Array<number>(words.length).fill(-1)
    for (let from = 0; from < words.length; from++) {
      let node: Node | undefined = root
      for (let to = from; to < words.length; to++) {
        node = node.next.get(words[to]!)
        if (!node) break
        if (!node.fields) continue
        const value = words.slice(from, to + 1).join(' ')
        for (const field of node.fields) mentions.push({field, value, from, to: to + 1})
        widest[from] = to + 1
      }
    }
    // "finance" inside "finance reports" is part of another value, not a mention of its own: a
    // mention is left out when another spans more words around it (starting before it and
    // ending no sooner, or starting with it and ending later)
    const reach: number[] = []
    for (let x = 0, far = -1; x < words.length; x++) {
      reach.push(far)
      far = Math.max(far, widest[x]!)
    }
    const own = new Map<string, Set<string>>()
    for (const m of mentions) {
      if (reach[m.from]! >= m.to || widest[m.from]! > m.to) continue
      let set = own.get(m.field)
      if (!set) own.set(m.field, (set = new Set()))
      set.add(m.value)
    }
    this.mentioned.set(key, own)
    return own
  }
}

export function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x)
}
