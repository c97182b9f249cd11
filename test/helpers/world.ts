import {buildInitialState, World, type InitialSpec, type WorldState} from '../../src/world/index.js'
import type {ToolResult} from '../../src/agents/types.js'

/** A fresh world from the acme fixture plus optional overrides. */
export function world(spec: Omit<InitialSpec, 'fixture'> = {}): World {
  return new World(buildInitialState({fixture: 'acme', ...spec}))
}

/** Call a tool and return its outcome. */
export function call(w: World, tool: string, args: Record<string, unknown> = {}): ToolResult {
  return w.invoke({tool, arguments: args}).outcome
}

/** The error code of an outcome, or 'ok'. */
export function code(r: ToolResult): string {
  return r.ok ? 'ok' : r.error.code
}

export function result<T = any>(r: ToolResult): T {
  if (!r.ok) throw new Error(`expected success, got ${r.error.code}: ${r.error.message}`)
  return r.result as T
}

export type {WorldState}
