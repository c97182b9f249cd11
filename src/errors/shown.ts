/** how much of a word a message repeats (one argument may be ~128 KiB long) */
export const SHOWN_MAX = 160

/**
 * A word an error message repeats (an id, a path, a name as typed), cut in the middle when it
 * is long — a path's end names the file — with its length: `/tmp/aaa…aaa/x.yaml (3000 characters)`.
 * A cut never splits a surrogate pair (an emoji stays whole or goes).
 */
export function clipped(word: string, max = SHOWN_MAX): string {
  if (word.length <= max) return word
  let head = max - Math.floor(max / 3)
  let tail = word.length - Math.floor(max / 3)
  if (isHigh(word.charCodeAt(head - 1))) head--
  if (isLow(word.charCodeAt(tail))) tail++
  return `${word.slice(0, head)}…${word.slice(tail)} (${word.length} characters)`
}

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff
