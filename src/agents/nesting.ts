/**
 * How deep what an agent says may nest objects and arrays (a command agent's line: the
 * message itself is level 1, its `arguments` level 2; an openai tool call's arguments: level
 * 1). The world's tools take flat arguments; a trace keeps them a few levels down, and a record
 * nested deeper than 256 levels is refused: one such call stopped the whole run, and every
 * rerun, and a few thousand levels overflowed the stack of what reads them.
 */
export const MAX_NESTING = 64

/**
 * Where the JSON text `text` opens its `max + 1`th nested object or array (its character
 * index), or undefined when it nests no deeper than `max`. Counted on the text, before any
 * parse: brackets inside strings do not count. For JSON only (a text that is not JSON may be
 * named deep when a parse would have said it is not JSON).
 */
export function jsonTooDeep(text: string, max = MAX_NESTING): number | undefined {
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      // a string: to its closing quote, past escapes
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return i
    } else if ((c === 0x5d || c === 0x7d) && depth > 0) depth--
  }
  return undefined
}
