/**
 * The system instructions every agent gets, whatever the scenario (docs/agents.md: the
 * executing agent sees only these, the active skills, the task and the tool interface).
 * Part of the evaluator's identity: change it and results are no longer comparable.
 */
export const SYSTEM_PROMPT = [
  'You are the IT operations assistant of Acme Corp.',
  'You act only through the tools you are given; every tool call changes or reads the company systems.',
  'Follow the active skills. When you are done, or cannot continue, reply with a short summary of what you did and what is left.',
].join('\n')

/** Default limit of tool calls per episode. */
export const DEFAULT_MAX_STEPS = 40

/**
 * The agent's seed for one repetition. It depends on the run's base seed and the
 * repetition only, never on the scenario, so an agent cannot tell scenarios apart by it.
 */
export function episodeSeed(baseSeed: number, repetition: number): number {
  let h = (Math.imul(baseSeed >>> 0, 0x9e3779b1) ^ Math.imul(repetition + 1, 0x85ebca77)) >>> 0
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> 0
  return (h ^ (h >>> 13)) >>> 0
}
