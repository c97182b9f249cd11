export {ScriptedAgent, SCRIPTED_VERSION} from './agent.js'
export {parseRules, parseRule, renderRule, WHEN, GUARDS, RESULTS, STATES, type Rule, type PreCall, type Guard, type When, type ResultCondition, type StateCondition} from './rules.js'
export {HABITS, FALLBACKS, type Habit} from './habits.js'
export {parseTask, type TaskFacts, type Intent} from './task.js'
