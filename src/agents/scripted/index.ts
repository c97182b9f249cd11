export {ScriptedAgent, SCRIPTED_VERSION, type ScriptedOptions} from './agent.js'
export {HABITS, FALLBACKS, NAIVE, type Habit, type Fallbacks, type Profile} from './habits.js'
export {parseTask, type TaskFacts, type PersonFacts, type Intent} from './task.js'
export {CARELESS, CAUTIOUS, LITERAL, PROFILES, PROFILE_SPECS} from './profiles.js'
