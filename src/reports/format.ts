/** Small formatting helpers shared by the text, Markdown and HTML views. */
export const pct = (x: number) => `${(x * 100).toFixed(1)}%`
export const short = (oid: string) => oid.slice(0, 12)
export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`
