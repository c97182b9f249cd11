#!/usr/bin/env node
// A minimal `command:` agent for exp (protocol 1, see docs/agent-protocol.md). No dependencies.
//   exp run train --agent 'command:node examples/agents/echo-agent.mjs'
// It is not smart: it looks the task up with the tools it was given, then echoes the task.
// Everything it says goes to stdout as one JSON object per line; diagnostics go to stderr.
import {createInterface} from 'node:readline'

const lines = createInterface({input: process.stdin, crlfDelay: Infinity})[Symbol.asyncIterator]()
const send = msg => process.stdout.write(JSON.stringify(msg) + '\n')

async function receive() {
  const {value, done} = await lines.next()
  if (done) process.exit(0) // exp closed our stdin: the episode is over
  return JSON.parse(value)
}

let next = 0
// One tool call: send it, then wait for the result with the same id.
async function call(tool, args) {
  const id = `c${++next}`
  send({type: 'tool_call', id, tool, arguments: args})
  const msg = await receive()
  if (msg.type !== 'tool_result' || msg.id !== id) throw new Error(`unexpected message: ${JSON.stringify(msg)}`)
  return msg
}

const start = await receive()
if (start.type !== 'start' || start.protocol !== 1) {
  send({type: 'error', message: `unsupported protocol ${start.protocol}`})
  process.exit(1)
}
process.stderr.write(`echo-agent: ${start.tools.length} tools, ${start.skills.length} skills, seed ${start.seed}\n`)

const has = name => start.tools.some(t => t.name === name)
const notes = []
if (has('search_documents')) {
  const r = await call('search_documents', {query: start.task})
  notes.push(r.ok ? `search found ${JSON.stringify(r.result)}` : `search failed: ${r.error.code}`)
}
// An employee id in the task (E-123 style) is worth a look.
const employee = start.task.match(/\bE-\d+\b/)?.[0]
if (employee && has('get_employee')) {
  const r = await call('get_employee', {employee_id: employee})
  notes.push(r.ok ? `employee ${employee} exists` : `employee ${employee}: ${r.error.message}`)
}
// An agent backed by a model would report its token counts like this, once per model call.
send({type: 'usage', tokens_in: start.task.length, tokens_out: 0})
send({type: 'final', answer: `echo: ${start.task}${notes.length ? ` (${notes.join('; ')})` : ''}`})
