import type {Message, ToolError, ToolInvoker, ToolSpec} from '../types.js'
import {argumentValue, learn, type Memory} from './memory.js'
import {resultChars, toolMessage} from './transcript.js'

/**
 * Thrown to end the work on the person at hand: a rule said "and stop", or the agent gave
 * up. Not an Error on purpose: it is control flow, and capturing a stack trace each time is costly.
 */
export class Stop {
  constructor(readonly answer: string) {}
}

export type Outcome =
  | {ok: true; result: any}
  | {ok: false; error: ToolError; handled?: boolean; skipped?: boolean}

export const SKIPPED = (why: string): Outcome => ({ok: false, skipped: true, error: {code: 'SKIPPED', message: why}})

interface Params {
  properties?: Record<string, unknown>
  required?: string[]
}

/**
 * The agent's side of the tool interface: fills arguments from memory by parameter name
 * (only parameters the schema declares; a call whose required parameters it cannot fill is
 * not made), records the transcript and the simulated usage, and learns from results.
 */
export class Calls {
  readonly messages: Message[] = []
  tokensIn = 0
  tokensOut = 0
  private history = 0
  private readonly done = new Set<string>()
  /** the latest outcome of each tool */
  readonly last = new Map<string, Outcome>()

  constructor(
    private readonly invoke: ToolInvoker,
    protected readonly tools: ReadonlyMap<string, ToolSpec>,
    readonly memory: Memory,
    private readonly baseTokens: number,
  ) {}

  has(tool: string): boolean {
    return this.tools.has(tool)
  }

  /** The arguments the agent would pass (explicit ones win), or undefined when a required one is unknown. */
  fill(tool: string, explicit: Record<string, unknown>, forTool?: string): Record<string, unknown> | undefined {
    const spec = this.tools.get(tool)
    if (!spec) return undefined
    const params = spec.parameters as Params
    const args: Record<string, unknown> = {}
    for (const [k, schema] of Object.entries(params.properties ?? {})) {
      const v = k in explicit ? explicit[k] : argumentValue(this.memory, k, tool, forTool, schema)
      if (v !== undefined) args[k] = v
    }
    return (params.required ?? []).some(k => args[k] === undefined) ? undefined : args
  }

  /** Invoke one tool with these arguments, record it and learn from the result. `once`: not again with the same arguments. */
  async send(tool: string, args: Record<string, unknown>, once = false): Promise<Outcome> {
    const argText = JSON.stringify(args)
    const key = `${tool}${argText}`
    if (once && this.done.has(key)) return SKIPPED('already done')
    this.done.add(key)
    const callId = `call_${this.messages.length}`
    this.tokensIn += this.baseTokens + (this.history >> 2)
    this.tokensOut += 12 + (argText.length >> 2)
    this.messages.push({role: 'assistant', content: '', tool_calls: [{id: callId, type: 'function', function: {name: tool, arguments: argText}}]})
    const res = await this.invoke({tool, arguments: args, callId})
    this.history += argText.length + resultChars(res)
    this.messages.push(toolMessage(callId, res))
    this.last.set(tool, res)
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

  async withItem<T>(item: Memory['item'], fn: () => Promise<T>): Promise<T> {
    const prev = this.memory.item
    this.memory.item = item
    try {
      return await fn()
    } finally {
      this.memory.item = prev
    }
  }
}
