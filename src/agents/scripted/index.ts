export {ScriptedAgent, SCRIPTED_VERSION} from './agent.js'
export {HABITS, FALLBACKS, type Habit} from './habits.js'
export {parseTask, type TaskFacts, type Intent} from './task.js'
