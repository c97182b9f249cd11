import t from 'tap'
import {parseAgentLine, startMessage, toolResultMessage, PROTOCOL_VERSION} from '../../../src/agents/command/protocol.js'
import {agentInput} from '../../helpers/agents.js'

t.test('the start message carries only what the agent may see', async t => {
  const m = startMessage(agentInput(), 42, 5)
  t.equal(m.protocol, PROTOCOL_VERSION)
  t.same(Object.keys(m).sort(), ['max_steps', 'protocol', 'seed', 'skills', 'system', 'task', 'tools', 'type'])
  t.equal(m.tools[0]!.name, 'search_documents')
})

t.test('tool results are echoed with the call id, ok or not', async t => {
  t.same(toolResultMessage('c1', {ok: true, result: {a: 1}}), {type: 'tool_result', id: 'c1', ok: true, result: {a: 1}})
  t.same(toolResultMessage('c2', {ok: false, error: {code: 'NOT_FOUND', message: 'no'}}), {type: 'tool_result', id: 'c2', ok: false, error: {code: 'NOT_FOUND', message: 'no'}})
})

t.test('valid agent lines parse, extra fields are ignored', async t => {
  t.same(parseAgentLine('{"type":"tool_call","id":"c1","tool":"x","arguments":{},"note":1}'), {ok: true, message: {type: 'tool_call', id: 'c1', tool: 'x', arguments: {}}})
  t.same(parseAgentLine('{"type":"usage","tokens_in":3,"tokens_out":4}'), {ok: true, message: {type: 'usage', tokens_in: 3, tokens_out: 4}})
  t.same(parseAgentLine('{"type":"final","answer":""}'), {ok: true, message: {type: 'final', answer: ''}})
  t.same(parseAgentLine('{"type":"error","message":"down"}'), {ok: true, message: {type: 'error', message: 'down'}})
})

t.test('malformed lines name the problem', async t => {
  const problem = (line: string) => {
    const p = parseAgentLine(line)
    return p.ok ? '' : p.problem
  }
  t.match(problem('hello'), /^not JSON/)
  t.match(problem('[1]'), /not a JSON object/)
  t.match(problem('{"type":"thought"}'), /unknown message type "thought"/)
  t.match(problem('{"id":"c1"}'), /unknown message type null/)
  t.match(problem('{"type":"tool_call","id":"c1","arguments":{}}'), /"tool"/)
  t.match(problem('{"type":"tool_call","id":"","tool":"x","arguments":{}}'), /"id"/)
  t.match(problem('{"type":"tool_call","id":"c1","tool":"x","arguments":[]}'), /"arguments"/)
  t.match(problem('{"type":"usage","tokens_in":-1,"tokens_out":0}'), /non-negative/)
  t.match(problem('{"type":"final"}'), /"answer"/)
})

t.test('a tool name longer than 128 characters is a protocol error, not a trace too large to record', async t => {
  const r = parseAgentLine(JSON.stringify({type: 'tool_call', id: 'c1', tool: 'x'.repeat(300_000), arguments: {}}))
  t.equal(r.ok, false)
  t.match((r as {problem: string}).problem, /"tool" must be a non-empty string of at most 128 characters/)
  t.equal(parseAgentLine(JSON.stringify({type: 'tool_call', id: 'c1', tool: 'x'.repeat(128), arguments: {}})).ok, true)
})

// Found by a sweep: a tool call whose arguments nested 300 levels made a trace the store refuses
// (256 levels at most): the whole run stopped, and every rerun; a few thousand levels overflowed
// the stack of the world's checks (a tool_error, exp's own code) or of the agent's transcript.
t.test('a line nested more than 64 levels deep is a protocol error, refused unparsed; brackets in strings do not count', async t => {
  for (const n of [63, 300, 3000, 6000, 1_000_000]) {
    const line = `{"type":"tool_call","id":"c1","tool":"x","arguments":{"x":${'['.repeat(n)}${']'.repeat(n)}}}`
    const r = parseAgentLine(line)
    t.equal(r.ok, false, `${n + 2} levels in all`)
    t.match((r as {problem: string}).problem, /^nested more than 64 levels deep/)
  }
  const ok = `{"type":"tool_call","id":"c1","tool":"x","arguments":{"x":${'['.repeat(62)}${']'.repeat(62)}}}`
  t.equal(parseAgentLine(ok).ok, true, '64 levels in all is allowed')
  const quoted = JSON.stringify({type: 'final', answer: '['.repeat(1000) + '"{'.repeat(100)})
  t.same(parseAgentLine(quoted), {ok: true, message: {type: 'final', answer: '['.repeat(1000) + '"{'.repeat(100)}})
})
