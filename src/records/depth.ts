/** How deep a record's values may nest (a trace's deepest is under 10). */
export const MAX_DEPTH = 256

/**
 * Whether objects and arrays in `value` nest deeper than `max` (or it holds itself), found
 * without recursion: an explicit stack, depth first (a value that holds itself reaches the
 * limit along its first path). For whatever a later walk would recurse through.
 */
export function nestedDeeper(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]]
  while (stack.length) {
    const [v, depth] = stack.pop()!
    if (v === null || typeof v !== 'object') continue
    if (depth > max) return true
    for (const x of Array.isArray(v) ? v : Object.values(v)) if (x !== null && typeof x === 'object') stack.push([x, depth + 1])
  }
  return false
}
