import {matchesAny} from './glob.js'

export interface ScopeReport {
  changed: string[]
  outside: string[]
  protected: string[]
  ok: boolean
}

/** Which changed paths a pull request may not touch: outside the editable scope, or protected. */
export function checkScope(changed: readonly string[], contract: {editable_scope: readonly string[]; protected_scope?: readonly string[]}): ScopeReport {
  const outside = changed.filter(p => !matchesAny(p, contract.editable_scope))
  const prot = changed.filter(p => matchesAny(p, contract.protected_scope ?? []))
  return {changed: [...changed], outside, protected: prot, ok: !outside.length && !prot.length}
}

/** Skills a change set touches (skills/<name>/…). */
export function skillsTouched(changed: readonly string[]): string[] {
  return [...new Set(changed.flatMap(p => {
    const m = /^skills\/([^/]+)\//.exec(p)
    return m ? [m[1]!] : []
  }))].sort()
}
