/** The name closest to a mistyped one (a flag's, a command's): at most 2 edits away, or a prefix of it. */
export function nearest(typed: string, names: readonly string[]): string | undefined {
  let best: string | undefined
  let bestD = 3
  for (const n of names) {
    const d = n.startsWith(typed) && typed.length >= 3 ? 1 : distance(typed, n)
    if (d < bestD) [best, bestD] = [n, d]
  }
  return best
}

function distance(a: string, b: string): number {
  let prev = Array.from({length: b.length + 1}, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const cur = [i]
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    prev = cur
  }
  return prev[b.length]!
}
