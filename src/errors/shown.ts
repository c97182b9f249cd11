/** how much of a word a message repeats (one argument may be ~128 KiB long) */
export const SHOWN_MAX = 160

/**
 * A word an error message repeats (an id, a path, a name as typed), cut in the middle when it
 * is long — a path's end names the file — with its length: `/tmp/aaa…aaa/x.yaml (3000 characters)`.
 */
export function clipped(word: string, max = SHOWN_MAX): string {
  if (word.length <= max) return word
  const tail = Math.floor(max / 3)
  return `${word.slice(0, max - tail)}…${word.slice(-tail)} (${word.length} characters)`
}
