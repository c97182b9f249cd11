import {FALLBACKS, habit, HABITS, NAIVE, type Habit, type Profile} from './habits.js'

/**
 * Built-in ways of working besides the naive one (docs/scripted-agent.md, "Profiles"): they
 * differ only in how the agent acts on what it reads — which habits it has, how it reacts
 * when nothing tells it how, which skill lines it follows — never in what it may read. No
 * profile looks at a scenario id, a split or an answer: the engine hands them the same input.
 */

const scaled = (h: Habit, k: number, slip?: number): Habit => ({...h, p: h.p * k, ...(h.informed !== undefined ? {informed: h.informed * k} : {}), ...(slip !== undefined && h.slip !== undefined ? {slip} : {})})

/**
 * Careless: half as likely to do the careful thing by habit, slips on "and stop" more often,
 * carries on (or takes a look-alike) where the naive agent would give up, and skips each rule
 * of its skill with probability `forget` for a whole episode (its own draw per rule).
 */
export const CARELESS: Profile = {
  name: 'careless',
  habits: HABITS.map(h => scaled(h, 0.5, 0.5)),
  fallbacks: {
    shortage: {give_up: 0.2, substitute: 0.4, carry_on: 0.4},
    model_refused: {give_up: 0.2, substitute: 0.4, carry_on: 0.4},
    unknown_employee: {search_by_name: 0.8, give_up: 0.2},
    refused: {give_up: 0.3, carry_on: 0.7},
  },
  forget: 0.3,
}

/**
 * Literal: does what is written, and little else. What the tool specs it is handed say in so
 * many words, it does every time — read the policy first (`grant_access`), search first
 * (`create_ticket`), ask the delegate a manager on leave names (`request_approval`) — each only
 * when that tool's description says so; the other naive habits at a quarter of their rate,
 * followed to the letter (no slip on "and stop", no half reaction). Where nothing says how to
 * react it carries on with the task as worded (or stops when the person cannot be found); and
 * it follows a skill line only in the rule's exact canonical form (`renderRule`, final period
 * included; a list marker is fine), so a paraphrased or unpunctuated rule is lost on it.
 */
const WRITTEN: Record<string, {tool: string; text: RegExp}> = {
  'read-policy': {tool: 'grant_access', text: /read the policy first/i},
  'search-tickets': {tool: 'create_ticket', text: /search first/i},
  'ask-delegate': {tool: 'request_approval', text: /delegate approves/i},
}
export const LITERAL: Profile = {
  name: 'literal',
  habits: HABITS.map(h => {
    const {slip: _slip, half: _half, ...rest} = WRITTEN[h.name] ? {...h, p: 1, cue: WRITTEN[h.name]} : scaled(h, 0.25)
    return rest
  }),
  fallbacks: {
    shortage: {give_up: 0, substitute: 0, carry_on: 1},
    model_refused: {give_up: 0, substitute: 0, carry_on: 1},
    unknown_employee: {search_by_name: 0, give_up: 1},
    refused: {give_up: 0, carry_on: 1},
  },
  literal: true,
}

const by = new Map(HABITS.map(h => [h.name, h]))
const as = (name: string, p: number, informed?: number): Habit => ({...by.get(name)!, p, ...(informed !== undefined ? {informed} : {})})
const steady = (h: Habit): Habit => {
  const {slip: _slip, half: _half, ...rest} = h
  return rest
}

/**
 * Cautious: always reads before it writes (inventory, policy, open tickets), escalates what
 * looks odd and does not slip on "and stop", stops rather than improvise when something goes
 * wrong — and over-escalates: a manager on leave or a refused grant makes it escalate and stop
 * where the expert asks the delegate or records a blocker first. A skill rule about the same
 * trigger replaces those reflexes.
 */
export const CAUTIOUS: Profile = {
  name: 'cautious',
  habits: [
    as('check-inventory', 1),
    as('read-policy', 1),
    as('search-tickets', 1),
    as('check-blockers', 0.9),
    as('contractor-own-device', 0.8),
    steady(as('handle-shortage', 0.8, 0.9)),
    steady(as('refuse-model', 0.6, 0.8)),
    steady(as('refuse-employment', 0.6, 0.8)),
    as('reuse-duplicate', 0.8),
    as('retry-approval', 0.75),
    as('offboard-everything', 0.8),
    steady(as('escalate-unknown', 0.9)),
    steady(as('escalate-pending', 0.9)),
    steady(as('escalate-contradiction', 0.9)),
    steady(as('escalate-ambiguous', 0.9)),
    habit('escalate-on-leave', 'If `request_approval` fails with `APPROVER_ON_LEAVE`, call `escalate` and stop.', 0.85),
    habit('escalate-refusal-at-once', 'If `grant_access` fails with `ROLE_NOT_ALLOWED`, call `escalate` and stop.', 0.7),
    as('read-docs', 0.5),
  ],
  fallbacks: {
    shortage: {give_up: 0.7, substitute: 0, carry_on: 0.3},
    model_refused: {give_up: 0.7, substitute: 0, carry_on: 0.3},
    unknown_employee: {search_by_name: 0.1, give_up: 0.9},
    refused: {give_up: 0.8, carry_on: 0.2},
  },
}

/** Every built-in profile by name: `scripted:NAME` (plain `scripted` is the naive one). */
export const PROFILES: Readonly<Record<string, Profile>> = {naive: NAIVE, careless: CARELESS, literal: LITERAL, cautious: CAUTIOUS}

/** The profiles a matrix `*` stands for, as agent specs. */
export const PROFILE_SPECS = ['scripted:careless', 'scripted:literal', 'scripted:cautious'] as const

export {FALLBACKS}
