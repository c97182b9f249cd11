import {globToRegExp, matchesAny} from '../gate/glob.js'
import type {ContractDoc} from './types.js'

/** What a schema cannot say about a contract: each with the data path it is about. */
export function semanticProblems(doc: ContractDoc): {path: (string | number)[]; message: string}[] {
  const out: {path: (string | number)[]; message: string}[] = []
  const globs = (field: 'editable_scope' | 'protected_scope' | 'private_data') => (doc[field] ?? []) as string[]
  for (const field of ['editable_scope', 'protected_scope', 'private_data'] as const) {
    globs(field).forEach((g, i) => {
      if (g.startsWith('/') || g.split('/').includes('..')) out.push({path: [field, i], message: `${field}[${i}] "${g}" must be a path inside the repository (no leading /, no ..)`})
      try {
        globToRegExp(g)
      } catch {
        out.push({path: [field, i], message: `${field}[${i}] "${g}" is not a glob`})
      }
    })
  }
  // an editable path may not also be protected: the boundary would be ambiguous
  globs('editable_scope').forEach((g, i) => {
    if (!/[*?[]/.test(g) && matchesAny(g, globs('protected_scope'))) out.push({path: ['editable_scope', i], message: `editable_scope[${i}] "${g}" is also protected`})
  })
  if (!globs('protected_scope').some(g => matchesAny('.research/contracts/x.yaml', [g]))) out.push({path: ['protected_scope'], message: 'protected_scope must cover .research/** (an attempt may not edit its own contract)'})
  for (const [i, g] of globs('private_data').entries()) {
    if (!globs('protected_scope').some(p => matchesAny(g.replace(/\*\*?/g, 'x'), [p]))) out.push({path: ['private_data', i], message: `private_data[${i}] "${g}" must be inside the protected scope`})
  }
  for (const key of ['dev_eval', 'holdout_eval'] as const) {
    const e = doc[key]
    const evaluator = e.evaluator ?? (e.command ? 'command' : 'world')
    if (evaluator === 'command' && !e.command) out.push({path: [key], message: `${key}: a command evaluator needs a command`})
    if (evaluator === 'world' && e.command) out.push({path: [key, 'command'], message: `${key}: the world evaluator runs no command (evaluator: command, or drop command)`})
    if (evaluator === 'world' && !e.split) out.push({path: [key], message: `${key}: the world evaluator needs a split`})
    const mf = e.metrics_file ?? 'metrics.json'
    if (evaluator === 'command' && matchesAny(mf, globs('editable_scope'))) out.push({path: [key, 'metrics_file'], message: `${key}.metrics_file "${mf}" is editable: an attempt could write its own score`})
    if (mf.startsWith('/') || mf.split('/').includes('..')) out.push({path: [key, 'metrics_file'], message: `${key}.metrics_file must be relative to the command's folder`})
  }
  if (doc.baseline && doc.baseline.revision === undefined && doc.baseline.value === undefined) out.push({path: ['baseline'], message: 'baseline needs a revision or a value'})
  return out
}
