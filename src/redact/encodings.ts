/**
 * The forms a known secret value takes when a program re-encodes it before printing: hex
 * (either case), percent-encoding, and base64 (standard and URL-safe) at each of the three
 * alignments it can have inside longer encoded data. For an alignment, only the characters
 * the value alone decides are kept: the first group's leading characters also carry the
 * bytes before it, the last group's the bytes after it (`sk-…` base64-encoded inside a JSON
 * blob is found as well as on its own). Forms shorter than MIN_FORM are left out: they would
 * match ordinary text.
 */
const MIN_FORM = 12

export function encodedForms(value: string | Buffer): string[] {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value
  const out = new Set<string>()
  const hex = bytes.toString('hex')
  out.add(hex)
  out.add(hex.toUpperCase())
  if (typeof value === 'string') out.add(encodeURIComponent(value))
  // (standalone, whole: with its padding)
  out.add(bytes.toString('base64'))
  out.add(bytes.toString('base64url'))
  for (let pad = 0; pad < 3; pad++) {
    const data = Buffer.concat([Buffer.alloc(pad), bytes])
    // characters of whole 3-byte groups only: a partial last group depends on what follows
    const whole = Math.floor(data.length / 3) * 4
    // leading characters that carry the pad bytes: none, two, three
    const skip = [0, 2, 3][pad]!
    for (const alphabet of ['base64', 'base64url'] as const) {
      const core = data.toString(alphabet).slice(skip, whole)
      if (core.length >= MIN_FORM) out.add(core)
    }
  }
  if (typeof value === 'string') out.delete(value)
  return [...out].filter(f => f.length >= MIN_FORM)
}

/** Each value and the forms it takes re-encoded (encodedForms), once each: what to mask of a few known secrets. */
export function withEncodedForms(values: readonly string[]): string[] {
  return [...new Set(values.flatMap(v => [v, ...encodedForms(v)]))]
}
