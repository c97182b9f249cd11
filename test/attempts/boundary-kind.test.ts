import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {MemoryRecordStore} from '../../src/store/index.js'
import {MemoryWorkspace} from '../../src/workspace/memory.js'
import {openAttempt} from '../../src/attempts/open.js'
import {evaluateAttempt} from '../../src/attempts/evaluate.js'
import {crossedBoundary, summarizeSplit} from '../../src/attempts/summary.js'
import {Authority} from '../../src/trust/authority.js'
import {trustSettings} from '../../src/trust/types.js'
import {parseContract} from '../../src/contracts/load.js'
import {prepare} from '../../src/records/index.js'
import {makeRedactor} from '../../src/redact/index.js'
import type {VerdictBody} from '../../src/records/types.js'
import {CONTRACT, EVAL_PY} from '../helpers/contracts.js'
import {tempDir} from '../helpers/repo.js'

const text = CONTRACT.replace(/private_data:\n {2}- data\/secret.json\n/, '')
const contract = parseContract(text, '.research/contracts/quad.yaml').contract!
const verdict = (over: Partial<VerdictBody>): {body: VerdictBody} => ({body: {observation: 'ob-000000000000000000000000', observation_digest: `sha256:${'0'.repeat(64)}`, attempt: 'at-000000000000000000000000', contract: {name: 'quad', digest: contract.source.digest}, split: 'dev', repetition: 0, evaluator: {id: 'command:quad', version: '1', digest: `sha256:${'1'.repeat(64)}`}, valid: false, outcome: 'invalid', violations: [], ...over}})

t.test('a boundary violation is told from other invalid verdicts by its invalid_kind, not by the words of its violations', async t => {
  // an evaluator that crashed printing the words of a boundary violation is a needs_retry, not a crossing
  const crash = verdict({invalid_kind: 'needs_retry', violations: ['the metrics file is unreadable: protected path changed: eval.py'], needs_retry: {stop_reason: 'unparseable_metrics', resume: {action: 'retry', retries_left: 1}}})
  t.equal(crossedBoundary(crash.body), false)
  t.match(summarizeSplit(contract, [crash], []), {outcome: 'needs_retry'})
  const crossed = verdict({invalid_kind: 'boundary', violations: ['outside the editable scope: README.md']})
  t.equal(crossedBoundary(crossed.body), true)
  t.match(summarizeSplit(contract, [crossed], []), {outcome: 'invalid', reason: /crossed its contract's boundary/})
  // the field decides, whatever the words say
  t.equal(crossedBoundary(verdict({invalid_kind: 'not_run', violations: ['protected path changed: eval.py']}).body), false)
})

t.test('verdicts written before invalid_kind are read as they were meant: the boundary check\'s own wording, a link included', async t => {
  for (const v of ['protected path changed: eval.py', 'outside the editable scope: x', 'not a regular file (a symbolic link or submodule): params.json']) t.equal(crossedBoundary(verdict({violations: [v]}).body), true, v)
  t.equal(crossedBoundary(verdict({violations: ['the evaluator exited with code 1'], needs_retry: {stop_reason: 'crash', resume: {action: 'abandon', retries_left: 0}}}).body), false)
  t.equal(crossedBoundary(verdict({violations: ['the metrics file is unreadable: protected path changed: x'], needs_retry: {stop_reason: 'unparseable_metrics', resume: {action: 'abandon', retries_left: 0}}}).body), false)
  t.equal(crossedBoundary(verdict({valid: true, outcome: 'neutral', violations: []}).body), false)
})

t.test('a recorded boundary verdict carries invalid_kind; one recorded without it still re-derives, and a forged kind does not', async t => {
  const ws = new MemoryWorkspace()
  ws.seed('main', {'eval.py': EVAL_PY.replace(/if split == "holdout":[\s\S]*?\n(?=score)/, ''), 'params.json': '{"x": 1, "y": 1}\n', '.research/contracts/quad.yaml': text})
  const store = new MemoryRecordStore()
  const o = {lane: 'me', worktreeRoot: tempDir(t), redact: makeRedactor({env: {}}), mainRef: 'refs/heads/main'}
  const a = await openAttempt(store, ws, {...o, contract: 'quad'})
  fs.writeFileSync(path.join(a.dir, 'eval.py'), 'print(1)\n')
  await t.rejects(evaluateAttempt(store, ws, a.id, {...o, split: 'dev'}), {code: 'E_BOUNDARY'})
  const ledger = await store.ledger()
  const own = ledger.records({kinds: ['verdict']}).find(v => v.body.attempt === a.id && !v.body.valid)!
  t.equal(own.body.invalid_kind, 'boundary')
  const obs = ledger.records({kinds: ['observation']}).find(x => x.id === own.body.observation)!
  // the same records, as an older exp wrote them (no invalid_kind), and as a forger would
  const replay = async (body: VerdictBody) => {
    const s = new MemoryRecordStore()
    const od = {kind: 'observation' as const, key: `obs/${a.id}/legacy`, body: obs.body, cites: []}
    const p = prepare(od)
    const vd = {kind: 'verdict' as const, key: `verdict/${p.id}`, body: {...body, observation: p.id, observation_digest: p.digest}, cites: [p.id]}
    await s.appendBatch([od, vd], {lane: 'old'})
    const l = await s.ledger()
    const id = l.select({kinds: ['verdict']})[0]!.id
    return new Authority(l, {settings: trustSettings(undefined), contracts: new Map([[contract.source.digest, contract]])}).standing(id)
  }
  const {invalid_kind: _drop, ...legacy} = own.body
  t.match(await replay(legacy), {ok: true}, 'a legacy verdict stands')
  t.match(await replay(own.body), {ok: true})
  t.match(await replay({...own.body, invalid_kind: 'needs_retry'}), {ok: false, class: 'inconsistent_evaluation', reason: /invalid_kind/})
})
