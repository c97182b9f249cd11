/**
 * The first duplicate key of any object in a JSON text (which JSON.parse accepted), with its
 * offset; undefined when every object's keys are distinct. JSON.parse keeps the last of two
 * equal keys without a word, so a record would silently lose a field its author wrote.
 * A single pass over the text: strings are skipped as a whole, keys compared decoded.
 */
export function duplicateKey(text: string): {key: string; pos: number} | undefined {
  const stack: (Set<string> | undefined)[] = []
  let i = 0
  const n = text.length
  while (i < n) {
    const c = text.charCodeAt(i)
    if (c === 0x22 /* " */) {
      const start = i
      i++
      let escaped = false
      while (i < n) {
        const d = text.charCodeAt(i)
        if (d === 0x5c /* \ */) {
          escaped = true
          i += 2
          continue
        }
        if (d === 0x22) break
        i++
      }
      i++
      const keys = stack[stack.length - 1]
      if (keys) {
        // a string in an object is a key when a colon follows it
        let j = i
        while (j < n && (text.charCodeAt(j) === 0x20 || text.charCodeAt(j) === 0x09 || text.charCodeAt(j) === 0x0a || text.charCodeAt(j) === 0x0d)) j++
        if (text.charCodeAt(j) === 0x3a /* : */) {
          const raw = text.slice(start, i)
          const key = escaped ? (JSON.parse(raw) as string) : raw.slice(1, -1)
          if (keys.has(key)) return {key, pos: start}
          keys.add(key)
        }
      }
      continue
    }
    if (c === 0x7b /* { */) stack.push(new Set())
    else if (c === 0x5b /* [ */) stack.push(undefined)
    else if (c === 0x7d /* } */ || c === 0x5d /* ] */) stack.pop()
    i++
  }
  return undefined
}
