/**
 * Split a command line the way a POSIX shell would for simple quoting, without running a
 * shell (no expansion, no globbing, no pipes, no variables): whitespace separates words,
 * '…' is literal, "…" honours \" \\ \$ \` escapes, a backslash outside quotes escapes the
 * next character. Returns null for an unterminated quote or a trailing backslash, so the
 * caller can report the spec it came from.
 */
export function splitCommandLine(line: string): string[] | null {
  const words: string[] = []
  let word = ''
  let inWord = false
  let i = 0
  while (i < line.length) {
    const ch = line[i]!
    if (ch === "'") {
      const end = line.indexOf("'", i + 1)
      if (end < 0) return null
      word += line.slice(i + 1, end)
      inWord = true
      i = end + 1
    } else if (ch === '"') {
      i++
      let closed = false
      while (i < line.length) {
        const c = line[i]!
        if (c === '"') {
          closed = true
          i++
          break
        }
        if (c === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1]!)) {
          word += line[i + 1]
          i += 2
        } else {
          word += c
          i++
        }
      }
      if (!closed) return null
      inWord = true
    } else if (ch === '\\') {
      if (i + 1 >= line.length) return null
      word += line[i + 1]
      inWord = true
      i += 2
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(word)
      word = ''
      inWord = false
      i++
    } else {
      word += ch
      inWord = true
      i++
    }
  }
  if (inWord) words.push(word)
  return words
}
