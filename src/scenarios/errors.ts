import {ExpError} from '../errors/base.js'
import {formatProblem, type Problem} from './types.js'

/** The scenario linter found problems; `data.problems` lists them with file and line. */
export class ScenarioLintError extends ExpError {
  constructor(problems: readonly Problem[], files: number) {
    const n = new Set(problems.map(p => p.file)).size
    super('E_SCHEMA', `${problems.length} problem(s) in ${n} of ${files} scenario file(s)`, {
      data: {problems: problems.map(p => ({...p, text: formatProblem(p)}))},
      hint: 'fix each file:line above; docs/scenarios.md describes every field',
    })
  }
}
