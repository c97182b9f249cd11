// The rule language (docs/scripted-agent.md "Rule grammar"): shared by the miner, the proposer and the agent.
export type {Rule, PreCall, Condition, ConditionTest, BeforeRule, OnErrorRule, OnResultRule, NeverRule} from './types.js'
export {WHEN, GUARDS, RESULTS, STATES, type When, type Guard, type ResultCondition, type StateCondition} from './vocabulary.js'
export {renderRule, renderCondition, renderConditions} from './render.js'
export {parseRule, parseRules, parseConditions, writable} from './parse.js'
export {ruleKey, triggerOf, toolsOf} from './keys.js'
export {conditionHolds, conditionSources, fieldOf, isRecord, listHolds, reportsState, requiresApproval, resultShows, ruleApplies, STATE_FIELD, testHolds, type Lookup, type ResultShapeOptions} from './conditions.js'
export {missingFields, type ResultSchema} from './missing.js'
