import {InvalidInputError, NotFoundError} from '../errors/index.js'

/** The shortest prefix of an id taken for the id, as git takes an abbreviated object name: the kind's two letters, its dash and one character more. */
export const MIN_PREFIX = 4

/**
 * The one of `ids` that `id` names: itself, or the only one it begins (a unique prefix of at
 * least MIN_PREFIX characters, as with git revisions). An empty id is refused as such (a
 * shell variable that held nothing: `exp promote "$p"` must not take the only proposal), a
 * prefix of several is NotFoundError listing them; undefined when none.
 */
export function byPrefix(ids: Iterable<string>, id: string, what: string): string | undefined {
  if (!id.trim()) throw new InvalidInputError(`the ${what} id is empty`, {arg: what}, `copy one from \`exp ledger --kind ${what}\``)
  const near: string[] = []
  for (const x of ids) {
    if (x === id) return x
    if (id.length >= MIN_PREFIX && x.startsWith(id)) near.push(x)
  }
  if (near.length > 1) throw new NotFoundError(what, id, `the prefix is ambiguous: ${near.slice(0, 5).join(', ')}${near.length > 5 ? `, … (${near.length} in all)` : ''}`)
  return near[0]
}
