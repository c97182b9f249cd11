import {digestOf} from '../records/digest.js'
import type {ToolSpec} from '../agents/types.js'
import {specOf, type ToolDef, type ToolMeta} from './tools/define.js'
import {TOOLS} from './tools/index.js'

/**
 * The tool catalog: what an agent sees (TOOL_SPECS) and what the harness knows about each
 * tool (TOOL_META). Its digest pins the tool interface in experiment manifests: any change
 * to a name, description, argument schema or metadata changes it.
 */
export const WORLD_VERSION = 'world@2'

const BY_NAME: ReadonlyMap<string, ToolDef<any>> = new Map(TOOLS.map(t => [t.name, t]))

export const TOOL_SPECS: readonly ToolSpec[] = Object.freeze(TOOLS.map(specOf))

export const TOOL_META: readonly ToolMeta[] = Object.freeze(
  TOOLS.map(({name, kind, reads, writes, errors, latencyMs}) => ({name, kind, reads, writes, errors, latencyMs})),
)

export const TOOL_NAMES: readonly string[] = TOOLS.map(t => t.name)

export const TOOL_CATALOG_DIGEST: string = digestOf({world: WORLD_VERSION, tools: TOOL_SPECS, meta: TOOL_META})

export function toolDef(name: string): ToolDef<any> | undefined {
  return BY_NAME.get(name)
}

export function toolMeta(name: string): ToolMeta | undefined {
  const t = BY_NAME.get(name)
  return t && TOOL_META[TOOLS.indexOf(t)]
}
