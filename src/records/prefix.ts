import {InvalidInputError, NotFoundError} from '../errors/index.js'

/** A prefix taken for an id: the kind's two letters, its dash and at least 4 hex digits, as git takes an abbreviated object name from 4 on. */
export function isIdPrefix(id: string): boolean {
  return /^[a-z]{2}-[0-9a-f]{4,}$/.test(id)
}

/**
 * The one of `ids` that `id` names: itself, or the only one it begins (a unique prefix:
 * isIdPrefix). An empty id is refused as such (a shell variable that held nothing:
 * `exp promote "$p"` must not take the only proposal), a prefix of several is NotFoundError
 * listing them; undefined when none.
 */
export function byPrefix(ids: Iterable<string>, id: string, what: string): string | undefined {
  if (!id.trim()) throw new InvalidInputError(`the ${what} id is empty`, {arg: what}, `copy one from \`exp ledger --kind ${what}\``)
  const near: string[] = []
  const prefix = isIdPrefix(id)
  for (const x of ids) {
    if (x === id) return x
    if (prefix && x.startsWith(id)) near.push(x)
  }
  if (near.length > 1) throw ambiguousPrefix(what, id, near)
  return near[0]
}

/** A prefix that several ids begin: named as ambiguous (not unknown), with some of them. */
export function ambiguousPrefix(what: string, id: string, near: readonly string[]): NotFoundError {
  return new NotFoundError(what, id, `give more of the id: ${near.slice(0, 5).join(', ')}${near.length > 5 ? `, … (${near.length} in all)` : ''}`, `ambiguous ${what} prefix: ${id} begins ${near.length} ids`)
}
