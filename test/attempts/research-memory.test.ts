import t from 'tap'
import path from 'node:path'
import {expJson, ROOT} from '../helpers/cli.js'
import {quadFixture} from '../helpers/contracts.js'

type Research = {attempts: {id: string; ordinal: number; reason?: string}[]}
const AGENT = `command:python3 ${path.join(ROOT, 'test/fixtures/agents/memory-researcher.py')}`

t.test('exp research --memory-mode: what the agent is shown of earlier attempts', async t => {
  const repo = await quadFixture(t)
  const lane = async (name: string, attempts: number, mode?: string) => {
    const r = await expJson<Research>(['research', 'quad', '--agent', AGENT, '--attempts', String(attempts), '--lane', name, ...(mode ? ['--memory-mode', mode] : [])], {cwd: repo})
    const ledger = await expJson<{id: string; body: {reason?: string}}[]>(['ledger', '--kind', 'attempt', '--lane', name], {cwd: repo})
    return r.attempts.map(a => ledger.find(x => x.id === a.id)?.body.reason ?? '')
  }
  t.same(await lane('a', 1), ['seen lanes  knowledge 0'], 'the first lane has nothing to see')
  t.same(await lane('b', 1, 'off'), ['seen lanes  knowledge 0'], 'off (and record_only, the same branch): nothing of lane a')
  t.same(await lane('c', 2, 'recall_only'), ['seen lanes a,b knowledge 0', 'seen lanes a,b knowledge 0'], 'recall_only: every other lane, never its own attempts')
  t.same(await lane('d', 2), ['seen lanes a,b,c knowledge 0', 'seen lanes a,b,c,d knowledge 0'], 'closed_loop (the default): everything, its own attempts included')
})
