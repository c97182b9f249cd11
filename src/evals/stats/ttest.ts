/**
 * One-sided paired t-test of H1: mean(d) > 0, for the differences d of paired runs (the
 * same repetition seed for an attempt and its baseline). With one pair, or no spread, the
 * test cannot speak: p is 1 unless every difference is positive with no spread (p 0).
 */
export function pairedTTest(diffs: readonly number[]): {n: number; mean: number; t: number; p: number} {
  const n = diffs.length
  const mean = n ? diffs.reduce((s, x) => s + x, 0) / n : 0
  if (n < 2) return {n, mean, t: 0, p: 1}
  const sd = Math.sqrt(diffs.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1))
  if (sd === 0) return {n, mean, t: mean > 0 ? Infinity : mean < 0 ? -Infinity : 0, p: mean > 0 ? 0 : 1}
  const t = mean / (sd / Math.sqrt(n))
  return {n, mean, t, p: 1 - studentCdf(t, n - 1)}
}

/** CDF of Student's t with `df` degrees of freedom, through the regularized incomplete beta function. */
export function studentCdf(t: number, df: number): number {
  const x = df / (df + t * t)
  const tail = 0.5 * incompleteBeta(x, df / 2, 0.5)
  return t >= 0 ? 1 - tail : tail
}

function logGamma(z: number): number {
  const c = [76.1800917294715, -86.5053203294168, 24.0140982408309, -1.23173957245016, 1.20865097386618e-3, -5.395239384953e-6]
  const x = z
  let y = z
  let tmp = x + 5.5
  tmp -= (x + 0.5) * Math.log(tmp)
  let ser = 1.00000000019002
  for (const k of c) ser += k / ++y
  return -tmp + Math.log((2.5066282746310002 * ser) / x)
}

/** The regularized incomplete beta I_x(a, b), by its continued fraction (Numerical Recipes betai/betacf). */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0
  if (x >= 1) return 1
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x))
  const cf = (xx: number, aa: number, bb: number) => {
    const tiny = 1e-30
    let c = 1
    let d = 1 - ((aa + bb) * xx) / (aa + 1)
    if (Math.abs(d) < tiny) d = tiny
    d = 1 / d
    let h = d
    for (let m = 1; m <= 200; m++) {
      const m2 = 2 * m
      let num = (m * (bb - m) * xx) / ((aa + m2 - 1) * (aa + m2))
      d = 1 + num * d
      if (Math.abs(d) < tiny) d = tiny
      c = 1 + num / c
      if (Math.abs(c) < tiny) c = tiny
      d = 1 / d
      h *= d * c
      num = (-(aa + m) * (aa + bb + m) * xx) / ((aa + m2) * (aa + m2 + 1))
      d = 1 + num * d
      if (Math.abs(d) < tiny) d = tiny
      c = 1 + num / c
      if (Math.abs(c) < tiny) c = tiny
      d = 1 / d
      const del = d * c
      h *= del
      if (Math.abs(del - 1) < 3e-12) break
    }
    return h
  }
  return x < (a + 1) / (a + b + 2) ? (front * cf(x, a, b)) / a : 1 - (front * cf(1 - x, b, a)) / b
}
