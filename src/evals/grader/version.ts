import {digestOf} from '../../records/digest.js'
import {COLLATERAL_RULES} from './collateral.js'
import {MATCH_OPS} from './match.js'

/**
 * The grader's identity, pinned in every verification record. The digest covers a
 * descriptor of the grading semantics (operators, constraint forms, collateral rules,
 * score definitions): bump GRADER_VERSION whenever any rule of src/evals/grader changes
 * meaning, so that verdicts of different graders are never compared as equal.
 */
export const GRADER_VERSION = 'grader@2'

export const GRADER_DESCRIPTOR = {
  version: GRADER_VERSION,
  invariant_forms: ['path', 'collection', 'order (strictly before; earliest or latest of a collection)', 'exactly_one_of', 'none_of'],
  operators: MATCH_OPS,
  constraint_forms: ['before', 'never', 'called', 'max_calls', 'max_errors', 'max_steps (runner)'],
  collateral: COLLATERAL_RULES,
  passed: 'valid and every invariant passed and no collateral and no constraint violation',
  scores: {
    success: 'passed ? 1 : 0',
    violations: 'constraint violations + collateral findings',
    tool_calls: 'actions',
    errors: 'failed actions',
    tokens: 'tokens_in + tokens_out',
    latency_ms: 'simulated latency',
    trajectory_length: 'messages',
  },
}

export const GRADER_DIGEST: string = digestOf(GRADER_DESCRIPTOR)
