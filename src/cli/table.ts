/**
 * Plain fixed-width table for terminal output (no colours: output is often piped). No rows
 * give '' (not a header over nothing), so that callers can say what is empty instead.
 */
export function table(rows: readonly (readonly (string | number)[])[], header?: readonly string[]): string {
  if (!rows.length) return ''
  const all = header ? [header, ...rows] : rows
  const widths = all[0]!.map((_, i) => Math.max(...all.map(r => String(r[i] ?? '').length)))
  const line = (r: readonly (string | number)[]) => r.map((c, i) => (i === r.length - 1 ? String(c) : String(c).padEnd(widths[i]!))).join('  ').trimEnd()
  return all.map(line).join('\n')
}

/** `1 record`, `3 records`: a count and its noun, in the plural unless it is one. */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`
}
