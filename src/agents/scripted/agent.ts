import type {Agent, AgentContext, AgentInput, AgentOutcome, SkillText, ToolInvoker, ToolSpec} from '../types.js'
import {play} from './plan.js'
import {Draws, fnv1a} from './random.js'
import {parseRules, renderRule, type Rule} from '../../knowledge/index.js'
import {Session, Stop} from './session.js'
import {parseTask, type TaskFacts} from './task.js'

/**
 * The scripted reference agent (DESIGN.md §5): deterministic for a given seed, generic
 * over skills, and naive. It reads only its input — system text, skills, task, tool specs —
 * and changes behaviour only through the rules it finds in the skills.
 */
export const SCRIPTED_VERSION = 'scripted@1'

// pure functions of the input, cached so that repeated episodes do not re-parse the same text
const rulesCache = new Map<string, {rules: Rule[]; lines: Set<string>}>()
const taskCache = new Map<string, TaskFacts>()
const toolCache = new WeakMap<readonly ToolSpec[], {byName: Map<string, ToolSpec>; chars: number}>()

function rulesOf(skills: readonly SkillText[]) {
  const key = skills.map(s => s.content).join('\n\u0000\n')
  let r = rulesCache.get(key)
  if (!r) {
    const rules = skills.flatMap(s => parseRules(s.content))
    r = {rules, lines: new Set(rules.map(renderRule))}
    if (rulesCache.size > 256) rulesCache.clear()
    rulesCache.set(key, r)
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

export class ScriptedAgent implements Agent {
  readonly name = 'scripted'
  readonly model = SCRIPTED_VERSION

  async run(input: AgentInput, invoke: ToolInvoker, ctx: AgentContext): Promise<AgentOutcome> {
    const tools = toolsOf(input.tools)
    const skillText = input.skills.map(s => s.content).join('\n\n')
    // simulated prompt size: ~4 characters a token
    const base = (input.system.length + skillText.length + input.task.length + tools.chars) >> 2
    // the seed mixes in the task so that habits vary across tasks within one repetition
    const draws = new Draws((ctx.seed ^ fnv1a(input.task)) >>> 0)
    const memory = {facts: factsOf(input.task), situation: 'identity' as const, blockersAdded: 0, notes: []}
    const skill = rulesOf(input.skills)
    const s = new Session(invoke, tools.byName, memory, draws, skill.rules, skill.lines, base)
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
