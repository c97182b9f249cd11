import type {Message, ToolError, ToolInvoker, ToolSpec} from '../types.js'
import {FALLBACKS, HABITS, type Habit} from './habits.js'
import {argumentValue, learn, sameOpenTicket, type Memory} from './memory.js'
import {resultChars, toolMessage} from './transcript.js'
import {Draws} from './random.js'
import {RESULTS, type ResultCondition, type Rule} from '../../knowledge/index.js'
import {contradicts} from './checks.js'

/**
 * Thrown to end the episode early: a rule said "and stop", or the agent gave up. Not an
 * Error on purpose: it is control flow, and capturing a stack trace each time is costly.
 */
export class Stop {
  constructor(readonly answer: string) {}
}

export type Outcome =
  | {ok: true; result: any}
  | {ok: false; error: ToolError; handled?: boolean; skipped?: boolean}

const SKIPPED = (why: string): Outcome => ({ok: false, skipped: true, error: {code: 'SKIPPED', message: why}})

/**
 * One episode of the scripted agent: the rule engine between the plan and the tools.
 * Every call goes through `call`, which applies the active rules (the skill's, then the
 * habits that fired this episode), fills arguments from memory, records the transcript,
 * and updates memory from results. Rules run only around calls the plan makes itself;
 * calls a rule makes do not trigger further rules (except `Never`), so nothing loops.
 */
export class Session {
  readonly messages: Message[] = []
  tokensIn = 0
  tokensOut = 0
  private history = 0
  private readonly done = new Set<string>()
  private readonly active: readonly Rule[]

  constructor(
    private readonly invoke: ToolInvoker,
    private readonly tools: ReadonlyMap<string, ToolSpec>,
    readonly memory: Memory,
    readonly draws: Draws,
    private readonly skill: readonly Rule[],
    skillLines: ReadonlySet<string>,
    private readonly baseTokens: number,
  ) {
    const fired = HABITS.filter(h => !skillLines.has(h.line) && this.draws.u(h.name) < h.p).map(h => h.rule)
    this.active = fired.length ? [...skill, ...fired] : skill
  }

  has(tool: string): boolean {
    return this.tools.has(tool)
  }

  /** The naive reaction when no rule or habit covers a situation (fixed per episode). */
  fallback<K extends keyof typeof FALLBACKS>(name: K): keyof (typeof FALLBACKS)[K] {
    return this.draws.pick(name, FALLBACKS[name] as Record<string, number>) as keyof (typeof FALLBACKS)[K]
  }

  /** A plan-level call: rules apply around it. */
  async call(tool: string, args: Record<string, unknown> = {}): Promise<Outcome> {
    if (await this.forbidden(tool)) return SKIPPED(`a rule forbids ${tool} now`)
    for (const r of this.active) {
      if (r.kind !== 'before' || r.tool !== tool) continue
      const pre = await this.before(r, tool)
      if (pre) return pre
    }
    const out = await this.raw(tool, args, {checked: true})
    if (out.ok) await this.afterResult(tool, out.result)
    else if (!out.skipped) return this.onFailure(tool, out.error, false)
    return out
  }

  /** React to a failure (a real one, or one the agent foresaw from a read). */
  async onFailure(tool: string, error: ToolError, informed: boolean): Promise<Outcome> {
    const rule = this.skill.find(r => r.kind === 'on_error' && r.tool === tool && r.code === error.code) ?? this.habit(tool, error.code, informed)
    if (!rule || rule.kind !== 'on_error') return {ok: false, error}
    this.memory.reason = `${tool} failed with ${error.code}: ${error.message}`
    // ids named in the error (e.g. the existing ticket of a DUPLICATE_TICKET) become the context of the reaction
    const ticket = /\bTCK-\d{4}\b/.exec(error.message)?.[0]
    if (ticket) {
      this.memory.ticketId = ticket
      this.memory.update = {comment: `Same problem reported again: ${this.memory.ticketDraft?.subject ?? this.memory.facts.topic ?? tool}`}
    }
    for (const t of rule.calls) await this.raw(t, {})
    if (rule.stop) throw new Stop(`Stopped after ${tool} failed with ${error.code}; escalated.`)
    return {ok: false, error, handled: true}
  }

  private habit(tool: string, code: string, informed: boolean): Rule | undefined {
    const h: Habit | undefined = HABITS.find(x => x.rule.kind === 'on_error' && x.rule.tool === tool && x.rule.code === code)
    if (!h) return undefined
    return this.draws.u(h.name) < (informed ? (h.informed ?? h.p) : h.p) ? h.rule : undefined
  }

  private async forbidden(tool: string): Promise<boolean> {
    for (const r of this.active) {
      if (r.kind !== 'never' || r.tool !== tool) continue
      if (!r.while) return true
      if (r.while === 'open_blockers') {
        let open = this.memory.blockersAdded + (this.memory.employee?.workflows.find(w => w.id === this.memory.workflowId)?.open_blockers ?? 0)
        if (this.memory.workflowId && this.has('get_workflow')) {
          const wf = await this.raw('get_workflow', {workflow_id: this.memory.workflowId})
          if (wf.ok) open = wf.result.open_blockers
        }
        if (open > 0) return true
      }
      if (r.while === 'holds_items' && (this.memory.employee?.devices.length || this.memory.employee?.access.length)) return true
    }
    return false
  }

  /** Run the calls of a `Before` rule; returns an outcome when the target call must not happen. */
  private async before(r: Extract<Rule, {kind: 'before'}>, target: string): Promise<Outcome | undefined> {
    const m = this.memory
    if (r.guard === 'each_held') {
      const e = m.employee
      for (const pre of r.calls) {
        const params = this.tools.get(pre.tool)?.parameters as {properties?: Record<string, unknown>} | undefined
        if (params?.properties?.model) for (const d of [...(e?.devices ?? [])]) await this.withItem({model: d.model, assignment_id: d.assignment_id}, () => this.raw(pre.tool, {}))
        if (params?.properties?.system) for (const s of [...(e?.access ?? [])]) await this.withItem({system: s}, () => this.raw(pre.tool, {}))
      }
      return undefined
    }
    for (const pre of r.calls) {
      if (pre.when === 'policy_requires' && !m.policy?.requires_approval) continue
      await this.raw(pre.tool, {}, {forTool: target, once: true})
    }
    // what the reads just showed: the agent will not make a call it knows would fail
    if (r.calls.some(c => c.tool === 'get_policy') && m.policy?.allowed_roles && m.employee && !m.policy.allowed_roles.includes(m.employee.role)) {
      return this.onFailure(target, {code: 'ROLE_NOT_ALLOWED', message: `the policy does not allow role ${m.employee.role}`}, true)
    }
    if (r.guard === 'in_stock' && m.item?.model) {
      const stock = m.inventory?.items?.find(i => i.model === m.item!.model)?.stock
      if (stock !== undefined && stock < 1) return this.onFailure(target, {code: 'OUT_OF_STOCK', message: `the inventory shows no ${m.item.model}`}, true)
    }
    if (r.guard === 'reuse_open') {
      const existing = sameOpenTicket(m)
      if (existing) {
        m.ticketId = existing
        m.update = {comment: `Same problem reported again: ${m.ticketDraft?.subject ?? m.facts.topic}`}
        await this.raw('update_ticket', {ticket_id: existing})
        return {ok: true, result: {ticket_id: existing, reused: true}}
      }
    }
    return undefined
  }

  async withItem<T>(item: Memory['item'], fn: () => Promise<T>): Promise<T> {
    const prev = this.memory.item
    this.memory.item = item
    try {
      return await fn()
    } finally {
      this.memory.item = prev
    }
  }

  private async afterResult(tool: string, result: any): Promise<void> {
    for (const r of this.active) {
      if (r.kind !== 'on_result' || r.tool !== tool || !this.holds(r.result, result)) continue
      this.memory.situation = 'identity'
      this.memory.reason = `${tool} returned ${RESULTS[r.result]}; needs a human decision`
      for (const t of r.calls) await this.raw(t, {})
      if (r.stop) throw new Stop(`Stopped: ${this.memory.reason}. Escalated.`)
    }
  }

  private holds(c: ResultCondition, result: any): boolean {
    switch (c) {
      case 'pending_info': return Array.isArray(result?.pending_info) && result.pending_info.length > 0
      case 'multiple_matches': return Array.isArray(result?.matches) && result.matches.length > 1
      case 'no_match': return Array.isArray(result?.matches) && result.matches.length === 0
      case 'contradicts_task': return typeof result?.id === 'string' && contradicts(this.memory.facts, result)
    }
  }

  /** Invoke one tool with filled arguments, record it in the transcript and learn from the result. */
  async raw(tool: string, explicit: Record<string, unknown>, opts: {forTool?: string; once?: boolean; checked?: boolean} = {}): Promise<Outcome> {
    const spec = this.tools.get(tool)
    if (!spec) return SKIPPED(`no tool ${tool}`)
    if (!opts.checked && (await this.forbidden(tool))) return SKIPPED(`a rule forbids ${tool} now`)
    const params = spec.parameters as {properties?: Record<string, unknown>; required?: string[]}
    const args: Record<string, unknown> = {}
    for (const k of Object.keys(params.properties ?? {})) {
      const v = k in explicit ? explicit[k] : argumentValue(this.memory, k, tool, opts.forTool)
      if (v !== undefined) args[k] = v
    }
    if ((params.required ?? []).some(k => args[k] === undefined)) return SKIPPED(`cannot fill the arguments of ${tool}`)
    const argText = JSON.stringify(args)
    const key = `${tool}${argText}`
    if (opts.once && this.done.has(key)) return SKIPPED('already done')
    this.done.add(key)
    const callId = `call_${this.messages.length}`
    this.tokensIn += this.baseTokens + (this.history >> 2)
    this.tokensOut += 12 + (argText.length >> 2)
    this.messages.push({role: 'assistant', content: '', tool_calls: [{id: callId, type: 'function', function: {name: tool, arguments: argText}}]})
    const res = await this.invoke({tool, arguments: args, callId})
    this.history += argText.length + resultChars(res)
    this.messages.push(toolMessage(callId, res))
    if (res.ok) learn(this.memory, tool, args, res.result)
    return res
  }

  /** The transcript's final answer; tokens for it are counted here. */
  finish(answer: string): string {
    this.tokensIn += this.baseTokens + (this.history >> 2)
    this.tokensOut += answer.length >> 2
    this.messages.push({role: 'assistant', content: answer})
    return answer
  }
}

