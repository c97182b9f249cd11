import type {Agent, AgentContext, AgentInput, AgentOutcome, SkillText, ToolInvoker, ToolSpec} from '../types.js'
import {play} from './plan.js'
import {Draws, fnv1a} from './random.js'
import {parseRule, parseRules, renderRule, ruleKey, type Rule} from '../../knowledge/index.js'
import {NAIVE, type Profile} from './habits.js'
import {PROFILES} from './profiles.js'
import type {Memory} from './memory.js'
import {Session, Stop} from './session.js'
import {parseTask, type TaskFacts} from './task.js'

/**
 * The scripted reference agent (docs/scripted-agent.md): deterministic for a given seed, generic
 * over skills, and naive. It reads only its input — system text, skills, task, tool specs —
 * and changes behaviour only through the rules it finds in the skills.
 */
export const SCRIPTED_VERSION = 'scripted@2'

// pure functions of the input, cached so that repeated episodes do not re-parse the same text
const rulesCache = new Map<string, Rule[]>()
const taskCache = new Map<string, TaskFacts>()
const toolCache = new WeakMap<readonly ToolSpec[], {byName: Map<string, ToolSpec>; chars: number}>()

function rulesOf(skills: readonly SkillText[]) {
  const key = skills.map(s => s.content).join('\n\u0000\n')
  let r = rulesCache.get(key)
  if (!r) {
    r = skills.flatMap(s => parseRules(s.content))
    if (rulesCache.size > 256) rulesCache.clear()
    rulesCache.set(key, r)
  }
  return r
}

const literalCache = new Map<string, Rule[]>()

/** The rules a literal reader follows: lines that are a rule in its exact canonical form (a list marker is fine). */
function literalRulesOf(skills: readonly SkillText[]) {
  const key = skills.map(s => s.content).join('\n\u0000\n')
  let r = literalCache.get(key)
  if (!r) {
    r = []
    for (const s of skills) {
      const body = s.content.replace(/^---\r?\n[\s\S]*?\r?\n---\r?\n/, '')
      for (const line of body.split(/\r?\n/)) {
        const rule = parseRule(line)
        if (rule && line.trim().replace(/^(?:[-*+]|\d+[.)])\s+/, '') === renderRule(rule)) r.push(rule)
      }
    }
    if (literalCache.size > 256) literalCache.clear()
    literalCache.set(key, r)
  }
  return r
}

function factsOf(task: string): TaskFacts {
  let f = taskCache.get(task)
  if (!f) {
    f = parseTask(task)
    if (taskCache.size > 4096) taskCache.clear()
    taskCache.set(task, f)
  }
  return f
}

function toolsOf(tools: readonly ToolSpec[]) {
  let t = toolCache.get(tools)
  if (!t) {
    t = {byName: new Map(tools.map(x => [x.name, x])), chars: JSON.stringify(tools).length}
    toolCache.set(tools, t)
  }
  return t
}

export interface ScriptedOptions {
  /** habits and fallbacks (default: the naive profile, docs/scripted-agent.md), or a built-in profile's name */
  profile?: Profile | string
  /** the episode's random draws from its seed (default: mulberry32 streams keyed by habit) */
  draws?: (seed: number) => Draws
}

export class ScriptedAgent implements Agent {
  readonly name = 'scripted'
  readonly model = SCRIPTED_VERSION
  /** the profile, when it is not the naive one: part of the agent's identity in every manifest */
  readonly params: Record<string, unknown> | undefined
  private readonly profile: Profile
  private readonly draws: (seed: number) => Draws

  constructor(o: ScriptedOptions = {}) {
    const p = o.profile === undefined ? NAIVE : typeof o.profile === 'string' ? (Object.hasOwn(PROFILES, o.profile) ? PROFILES[o.profile] : undefined) : o.profile
    if (!p) throw new Error(`unknown scripted profile ${String(o.profile)}`)
    this.profile = p
    this.params = p.name === NAIVE.name ? undefined : {profile: p.name}
    this.draws = o.draws ?? (seed => new Draws(seed))
  }

  /** The skill's rules as this profile reads them: all of them, the canonical ones only (literal), minus the ones it forgets this episode (careless). */
  private rules(skills: readonly SkillText[], draws: Draws): readonly Rule[] {
    const all = this.profile.literal ? literalRulesOf(skills) : rulesOf(skills)
    const forget = this.profile.forget
    return forget ? all.filter(r => draws.u(`forget/${ruleKey(r)}`) >= forget) : all
  }

  async run(input: AgentInput, invoke: ToolInvoker, ctx: AgentContext): Promise<AgentOutcome> {
    const tools = toolsOf(input.tools)
    const skillText = input.skills.map(s => s.content).join('\n\n')
    // simulated prompt size: ~4 characters a token
    const base = (input.system.length + skillText.length + input.task.length + tools.chars) >> 2
    // the seed mixes in the task so that habits vary across tasks within one repetition
    const draws = this.draws((ctx.seed ^ fnv1a(input.task)) >>> 0)
    const facts = factsOf(input.task)
    const memory: Memory = {facts, person: facts.people[0]!, situation: 'identity', blockersAdded: 0, seen: [], notes: []}
    const s = new Session(invoke, tools.byName, memory, draws, this.rules(input.skills, draws), this.profile, base)
    s.messages.push({role: 'system', content: skillText ? `${input.system}\n\n${skillText}` : input.system}, {role: 'user', content: input.task})
    let answer: string
    try {
      answer = await play(s)
    } catch (e) {
      if (!(e instanceof Stop)) throw e
      answer = e.answer
    }
    s.finish(answer)
    return {finalAnswer: answer, messages: s.messages, usage: {tokensIn: s.tokensIn, tokensOut: s.tokensOut}}
  }
}
