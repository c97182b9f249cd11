import {AgentSpecError} from '../../errors/agent.js'
import {ResearchAgentError} from '../../errors/index.js'
import {splitCommandLine} from '../../agents/command/argv.js'
import {AgentProcess} from '../../agents/command/process.js'
import {episodeSandbox, prepareLaunch, splitEnvWords, type Prepared, type SandboxOptions} from '../../agents/command/sandbox.js'
import {rm} from 'node:fs/promises'
import type {ResearchAgent, ResearchMove, ResearchTask} from './types.js'

/**
 * `command:PROGRAM ARGS` as a research agent (docs/research-protocol.md): one process per
 * proposal, sandboxed like an episode agent (an empty folder, a scrubbed environment, the
 * repository hidden where Linux allows). exp writes one `task` line; the agent answers one
 * `move` line (edits or a unified diff within the editable scope), or `none`.
 */
export function createCommandResearchAgent(commandLine: string, o: {sandbox?: Omit<SandboxOptions, 'env'>; timeoutMs?: number} = {}): ResearchAgent {
  const spec = `command:${commandLine}`
  const words = splitCommandLine(commandLine)
  if (!words?.length) throw new AgentSpecError(spec, 'no program given', 'e.g. command:python3 my_researcher.py')
  const {pass, rest} = splitEnvWords(words)
  const [program, ...args] = rest as [string, ...string[]]
  let prepared: Promise<Prepared> | undefined
  return {
    name: spec,
    params: {protocol: 1},
    async propose(task: ResearchTask): Promise<ResearchMove | null> {
      prepared ??= prepareLaunch(program, args, o.sandbox ?? {})
      const sb = await episodeSandbox(await prepared, pass, o.sandbox ?? {})
      const proc = new AgentProcess(sb.program, sb.args, {cwd: sb.cwd, env: sb.env, maxLineBytes: 16 * 1024 * 1024, stderrBytes: 64 * 1024})
      const fail = (why: string) => new ResearchAgentError(spec, `${why}${proc.stderrTail().trim() ? `; stderr: ${proc.stderrTail().trim()}` : ''}`)
      try {
        proc.send({type: 'task', ...task})
        const deadline = Date.now() + (o.timeoutMs ?? 10 * 60_000)
        for (;;) {
          const ev = await proc.next(deadline - Date.now())
          if (ev.kind === 'timeout') throw fail('no answer in time')
          if (ev.kind === 'spawn_error') throw fail(`cannot start: ${ev.message}`)
          if (ev.kind === 'exit' || ev.kind === 'eof') throw fail('ended without a move')
          if (ev.kind === 'overflow') throw fail(`a line of ${ev.bytes} bytes`)
          if (ev.kind !== 'line') continue
          let msg: {type?: string; hypothesis?: ResearchMove['hypothesis']; edits?: ResearchMove['edits']; patch?: string; reason?: string; message?: string}
          try {
            msg = JSON.parse(ev.line) as typeof msg
          } catch {
            throw fail(`not JSON: ${ev.line.slice(0, 200)}`)
          }
          if (msg.type === 'none') return null
          if (msg.type === 'error') throw fail(msg.message ?? 'it gave up')
          if (msg.type !== 'move') throw fail(`unknown line type ${JSON.stringify(msg.type)}`)
          if (!msg.hypothesis?.statement || (!msg.edits && !msg.patch)) throw fail('a move needs hypothesis.statement and edits or patch')
          return {hypothesis: {statement: String(msg.hypothesis.statement), mechanism: String(msg.hypothesis.mechanism ?? '')}, ...(msg.edits ? {edits: msg.edits} : {}), ...(msg.patch ? {patch: msg.patch} : {}), reason: String(msg.reason ?? msg.hypothesis.statement)}
        }
      } finally {
        await proc.close(200, 1000)
        await sb.cleanup()
      }
    },
    async close(): Promise<void> {
      const files = prepared && (await prepared.catch(() => undefined))?.files
      if (files) await rm(files, {recursive: true, force: true})
    },
  }
}
