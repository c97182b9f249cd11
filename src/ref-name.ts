/**
 * Why `ref` is not a ref name git would take (undefined: it is one), by the rules of `git
 * check-ref-format`: no empty component, none starting with '.' or ending with '.lock', no
 * '..', '@{', space, control character or any of ~ ^ : ? * [ \, no '.' at the end.
 */
export function refNameProblem(ref: string): string | undefined {
  if (!ref.trim()) return 'it is empty'
  const bad = [...ref].find(c => c <= ' ' || c === '\x7f' || '~^:?*[\\'.includes(c))
  if (bad !== undefined) return `it holds ${bad === ' ' ? 'a space' : bad < ' ' || bad === '\x7f' ? 'a control character' : `'${bad}'`}, which git does not allow in a ref name`
  if (ref.includes('..')) return "it holds '..'"
  if (ref.includes('@{')) return "it holds '@{'"
  if (ref.split('/').includes('')) return "it has an empty component (a '/' at the start or end, or '//')"
  if (ref.endsWith('.')) return "it ends with '.'"
  const part = ref.split('/').find(p => p.startsWith('.') || p.endsWith('.lock'))
  if (part !== undefined) return `its component ${part} ${part.startsWith('.') ? "starts with '.'" : "ends with '.lock'"}`
  if (ref === '@') return "@ alone is git's name for HEAD"
  return undefined
}
