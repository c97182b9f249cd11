import type {ToolError, ToolInvoker, ToolSpec} from '../types.js'
import {conditionSources, isRecord, RESULTS, requiresApproval, resultShows, ruleApplies, triggerOf, type BeforeRule, type ResultCondition, type ResultSchema, type Rule} from '../../knowledge/index.js'
import {Calls, SKIPPED, Stop, type Outcome} from './calls.js'
import {contradicts} from './checks.js'
import {asFollowed, cued, type Fallbacks, type Habit, type Profile} from './habits.js'
import {latestAbout, sameOpenTicket, type Memory} from './memory.js'
import type {Draws} from './random.js'

export {Stop, type Outcome} from './calls.js'

/**
 * One episode of the scripted agent: the rule engine between the plan and the tools. Every
 * plan-level call goes through `call`, which applies the active rules (the skill's, then the
 * habits that fired this episode, unless the skill has a rule about the same trigger): a
 * rule speaks only when its conditions hold; the calls a `Before` rule makes are checks whose
 * results decide whether the action follows. Calls a rule makes do not trigger further
 * `Before`/`If` rules (so nothing loops), but `Never` always applies.
 */
export class Session extends Calls {
  private readonly active: readonly Rule[]
  private readonly taken: ReadonlySet<string>
  private readonly habits: ReadonlySet<Rule>

  constructor(
    invoke: ToolInvoker,
    tools: ReadonlyMap<string, ToolSpec>,
    memory: Memory,
    readonly draws: Draws,
    private readonly skill: readonly Rule[],
    private readonly profile: Profile,
    baseTokens: number,
  ) {
    super(invoke, tools, memory, baseTokens)
    // a skill rule without conditions takes its trigger from the habits everywhere; one with
    // conditions only where it speaks (see `quiet`)
    this.taken = new Set(skill.filter(r => !r.when?.length && !r.unless?.length).map(triggerOf))
    const fired = profile.habits.filter(h => !this.taken.has(triggerOf(h.rule)) && cued(h, tools) && this.draws.u(h.name) < h.p).map(h => this.followed(h))
    this.habits = new Set(fired)
    this.active = fired.length ? [...skill, ...fired] : skill
  }

  /** The naive reaction when no rule or habit covers a situation (fixed per episode). */
  fallback<K extends keyof Fallbacks>(name: K): keyof Fallbacks[K] {
    return this.draws.pick(name, this.profile.fallbacks[name] as unknown as Record<string, number>) as keyof Fallbacks[K]
  }

  /** A plan-level call: rules apply around it. */
  async call(tool: string, explicit: Record<string, unknown> = {}): Promise<Outcome> {
    const args = this.fill(tool, explicit)
    if (!args) return SKIPPED(this.has(tool) ? `cannot fill the arguments of ${tool}` : `no tool ${tool}`)
    if (await this.forbidden(tool, args)) return SKIPPED(`a rule forbids ${tool} now`)
    for (const r of this.active) {
      if (r.kind !== 'before' || r.tool !== tool || !(await this.applies(r, args))) continue
      const pre = await this.before(r, tool, args)
      if (pre) return pre
    }
    const out = await this.send(tool, args)
    if (out.ok) await this.afterResult(tool, out.result, args)
    else if (!out.skipped) return this.onFailure(tool, out.error, false, args)
    return out
  }

  /** A call a rule makes: arguments from memory, `Never` rules still apply. */
  async raw(tool: string, explicit: Record<string, unknown> = {}, opts: {forTool?: string; once?: boolean} = {}): Promise<Outcome> {
    const args = this.fill(tool, explicit, opts.forTool)
    if (!args) return SKIPPED(this.has(tool) ? `cannot fill the arguments of ${tool}` : `no tool ${tool}`)
    if (await this.forbidden(tool, args)) return SKIPPED(`a rule forbids ${tool} now`)
    return this.send(tool, args, opts.once)
  }

  /**
   * Does a rule apply to this call? Reads a condition's source first when the agent has not read
   * it yet. A habit keeps quiet where a skill rule about its trigger speaks: applies, or names
   * this situation as its exception.
   */
  private async applies(r: Rule, args: Record<string, unknown>): Promise<boolean> {
    if (this.habits.has(r)) for (const x of this.skill) if (triggerOf(x) === triggerOf(r) && (await this.speaks(x, args))) return false
    if (!r.when?.length && !r.unless?.length) return true
    await this.readSources(r, args)
    return ruleApplies(r, s => latestAbout(this.memory, s, args), args)
  }

  /** A skill rule speaks about a call when its `when` conditions hold (its exceptions are part of what it says). */
  private async speaks(r: Rule, args: Record<string, unknown>): Promise<boolean> {
    if (!r.when?.length) return true
    await this.readSources(r, args)
    return ruleApplies({when: r.when}, s => latestAbout(this.memory, s, args), args)
  }

  private async readSources(r: Rule, args: Record<string, unknown>): Promise<void> {
    for (const src of conditionSources(r)) if (latestAbout(this.memory, src, args) === undefined && this.has(src)) await this.raw(src, {}, {once: true})
  }

  /** React to a failure (a real one, or one the agent foresaw from a read). */
  async onFailure(tool: string, error: ToolError, informed: boolean, args: Record<string, unknown> = {}): Promise<Outcome> {
    let rule: Rule | undefined
    for (const r of specificFirst(this.skill)) if (r.kind === 'on_error' && r.tool === tool && r.code === error.code && (await this.applies(r, args))) rule ??= r
    rule ??= await this.habit(tool, error.code, informed, args)
    if (!rule || rule.kind !== 'on_error') return {ok: false, error}
    const m = this.memory
    m.reason = `${tool} failed with ${error.code}: ${error.message}`
    // ids named in the error become the context of the reaction: the existing ticket of a
    // DUPLICATE_TICKET, the person who approves in a manager's place
    const ticket = /\bTCK-\d{4}\b/.exec(error.message)?.[0]
    if (ticket) {
      m.ticketId = ticket
      m.update = {comment: `Same problem reported again: ${m.ticketDraft?.subject ?? m.person.problem ?? tool}`}
    }
    const people = (error.message.match(/\bE-\d{4}\b/g) ?? []).filter(id => id !== m.employee?.id)
    m.approver = people[people.length - 1]
    try {
      for (const t of rule.calls) await this.raw(t, {})
    } finally {
      m.approver = undefined
    }
    if (rule.stop) throw new Stop(`Stopped after ${tool} failed with ${error.code}; escalated.`)
    return {ok: false, error, handled: true}
  }

  private async habit(tool: string, code: string, informed: boolean, args: Record<string, unknown>): Promise<Rule | undefined> {
    const h: Habit | undefined = this.profile.habits.find(x => x.rule.kind === 'on_error' && x.rule.tool === tool && x.rule.code === code && cued(x, this.tools))
    if (!h || this.taken.has(triggerOf(h.rule))) return undefined
    for (const x of this.skill) if (triggerOf(x) === triggerOf(h.rule) && (await this.speaks(x, args))) return undefined
    return this.draws.u(h.name) < (informed ? (h.informed ?? h.p) : h.p) ? this.followed(h) : undefined
  }

  /** A habit as this episode follows it (its slip on "and stop" drawn once). */
  private followed(h: Habit): Rule {
    return asFollowed(h, h.slip !== undefined && this.draws.u(`${h.name}/slip`) < h.slip, h.half !== undefined && this.draws.u(`${h.name}/half`) < h.half)
  }

  private async forbidden(tool: string, args: Record<string, unknown>): Promise<boolean> {
    for (const r of this.active) {
      if (r.kind !== 'never' || r.tool !== tool || !(await this.applies(r, args))) continue
      if (!r.while) return true
      const wf = await this.workflowNow()
      if (r.while === 'open_blockers' && (wf?.open_blockers ?? 0) > 0) return true
      if (r.while === 'holds_items' && (wf?.open_items ?? 0) > 0) return true
    }
    return false
  }

  /**
   * The workflow at hand as it is now: read again when the agent can (get_workflow), else what
   * the employee record said, plus the blockers the agent added since.
   */
  private async workflowNow(): Promise<{open_blockers: number; open_items: number} | undefined> {
    const m = this.memory
    if (!m.workflowId) return undefined
    if (this.has('get_workflow')) {
      const wf = await this.send('get_workflow', {workflow_id: m.workflowId})
      if (wf.ok) return wf.result
    }
    const seen = m.employee?.workflows.find(w => w.id === m.workflowId)
    return seen && {open_blockers: seen.open_blockers + m.blockersAdded, open_items: seen.open_items ?? 0}
  }

  /** Run the checks of a `Before` rule; returns an outcome when the action must not happen. */
  private async before(r: BeforeRule, target: string, args: Record<string, unknown>): Promise<Outcome | undefined> {
    const m = this.memory
    if (r.guard === 'each_held') {
      const e = m.employee
      for (const pre of r.calls) {
        const params = this.tools.get(pre.tool)?.parameters as {properties?: Record<string, unknown>} | undefined
        if (params?.properties?.model) for (const d of [...(e?.devices ?? [])]) await this.withItem({model: d.model, assignment_id: d.assignment_id}, () => this.raw(pre.tool))
        if (params?.properties?.system) for (const s of [...(e?.access ?? [])]) await this.withItem({system: s}, () => this.raw(pre.tool))
      }
      return undefined
    }
    // "when the policy requires it": a read this rule made before answered requires_approval: true
    const reads: unknown[] = []
    for (const pre of r.calls) {
      if (pre.when === 'policy_requires' && !reads.some(requiresApproval)) continue
      const out = await this.raw(pre.tool, {}, {forTool: target, once: true})
      reads.push(out.ok ? out.result : latestAbout(m, pre.tool, args))
      if (!out.ok && !out.skipped) {
        // the check failed: its result decides. A reaction that repeats the check successfully lets the action go on
        const reacted = await this.onFailure(pre.tool, out.error, false, args)
        if (!this.last.get(pre.tool)?.ok) return {ok: false, error: {code: out.error.code, message: `${pre.tool}: ${out.error.message}`}, handled: !!(reacted as {handled?: boolean}).handled}
      }
      // what the read just showed: the agent will not make a call it knows would fail
      const foreseen = out.ok ? this.foresee(target, args, out.result, r) : undefined
      if (foreseen) return this.onFailure(target, foreseen, true, args)
    }
    if (r.guard === 'reuse_open') {
      const existing = sameOpenTicket(m)
      if (existing) {
        m.ticketId = existing
        m.update = {comment: `Same problem reported again: ${m.ticketDraft?.subject ?? m.person.problem ?? ''}`.trim()}
        await this.raw('update_ticket', {ticket_id: existing})
        return {ok: true, result: {ticket_id: existing, reused: true}}
      }
    }
    return undefined
  }

  /** A refusal the read's answer announces for the action: the role or employment type excluded, no stock (with the stock guard). */
  private foresee(target: string, args: Record<string, unknown>, result: unknown, r: BeforeRule): ToolError | undefined {
    const entry = aboutItem(result, args)
    const e = this.memory.employee
    if (!entry || !e) return undefined
    const spec = this.tools.get(target)
    const roles = entry.allowed_roles
    if (Array.isArray(roles) && roles.length && !roles.includes(e.role)) return refusal(spec, 'role', `${args.model ?? args.system ?? target} is not for role ${e.role}`)
    const kinds = entry.allowed_employment
    if (Array.isArray(kinds) && kinds.length && e.employment_type && !kinds.includes(e.employment_type)) return refusal(spec, 'employment', `${args.system ?? target} is not for a ${e.employment_type}`)
    if (r.guard === 'in_stock' && typeof entry.stock === 'number' && entry.stock < 1) return refusal(spec, 'stock', `the inventory shows no ${String(args.model)}`) ?? {code: 'OUT_OF_STOCK', message: `the inventory shows no ${String(args.model)}`}
    return undefined
  }

  private async afterResult(tool: string, result: unknown, args: Record<string, unknown>): Promise<void> {
    const answered = new Set<string>()
    for (const r of specificFirst(this.active)) {
      if (r.kind !== 'on_result' || r.tool !== tool || answered.has(r.result) || !this.holds(r.result, tool, result) || !(await this.applies(r, args))) continue
      // one answer per situation: the most specific rule that speaks
      answered.add(r.result)
      this.memory.situation = 'identity'
      this.memory.reason = `${tool} returned ${RESULTS[r.result]}; needs a human decision`
      for (const t of r.calls) await this.raw(t)
      if (r.stop) throw new Stop(`Stopped: ${this.memory.reason}. Escalated.`)
    }
  }

  private holds(c: ResultCondition, tool: string, result: unknown): boolean {
    const schema = this.tools.get(tool)?.returns as ResultSchema | undefined
    return resultShows(c, result, {schema, contradicts: rec => contradicts(this.memory.person, rec as never)})
  }
}

/** Rules with conditions before those without (stable otherwise): where both speak, the one about this situation wins. */
function specificFirst(rules: readonly Rule[]): Rule[] {
  const n = (r: Rule) => (r.when?.length ?? 0) + (r.unless?.length ?? 0)
  return rules.map((r, i) => ({r, i})).sort((a, b) => n(b.r) - n(a.r) || a.i - b.i).map(x => x.r)
}

/** The part of a result about the item of a call: the result itself, or the listed record naming one of the call's values. */
function aboutItem(result: unknown, args: Record<string, unknown>): Record<string, unknown> | undefined {
  if (!isRecord(result)) return undefined
  const values = new Set(Object.values(args).filter(v => typeof v === 'string'))
  for (const v of Object.values(result)) {
    if (!Array.isArray(v)) continue
    const hit = v.find(x => isRecord(x) && Object.values(x).some(y => typeof y === 'string' && values.has(y)))
    if (hit) return hit as Record<string, unknown>
  }
  return Object.values(result).some(y => typeof y === 'string' && values.has(y)) ? result : undefined
}

/** The error code a tool's description gives for a refusal about `topic` (role, employment, stock), as a reader of the spec would find it. */
function refusal(spec: ToolSpec | undefined, topic: string, message: string): ToolError | undefined {
  for (const clause of (spec?.description ?? '').split(/[.;,]/)) {
    const code = /\b[A-Z]{2,}(?:_[A-Z]+)+\b/.exec(clause)?.[0]
    if (code && clause.toLowerCase().includes(topic)) return {code, message}
  }
  return undefined
}
