import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {MemoryRecordStore} from '../../src/store/index.js'
import {MemoryWorkspace} from '../../src/workspace/memory.js'
import {openAttempt} from '../../src/attempts/open.js'
import {evaluateAttempt} from '../../src/attempts/evaluate.js'
import {promoteAttempt} from '../../src/attempts/promote.js'
import {Authority} from '../../src/trust/authority.js'
import {trustSettings} from '../../src/trust/types.js'
import {parseContract} from '../../src/contracts/load.js'
import {makeRedactor} from '../../src/redact/index.js'
import {CONTRACT, EVAL_PY, memoryQuad} from '../helpers/contracts.js'
import {tempDir} from '../helpers/repo.js'

// The contract loop speaks to ports only: here a memory record store and a memory workspace
// (real folders only for the work trees the evaluator runs in).
t.test('attempt new, eval and promote over the memory adapters of RecordStore and Workspace', async t => {
  const contract = CONTRACT.replace(/private_data:\n {2}- data\/secret.json\n/, '')
  const ws = new MemoryWorkspace()
  const main = ws.seed('main', {'eval.py': EVAL_PY.replace(/if split == "holdout":[\s\S]*?\n(?=score)/, ''), 'params.json': '{"x": 1, "y": 1}\n', '.research/contracts/quad.yaml': contract})
  const store = new MemoryRecordStore()
  const worktreeRoot = tempDir(t)
  const o = {lane: 'me', worktreeRoot, redact: makeRedactor({env: {}}), mainRef: 'refs/heads/main'}
  const a = await openAttempt(store, ws, {...o, contract: 'quad'})
  fs.writeFileSync(path.join(a.dir, 'params.json'), '{"x": 5, "y": 2}\n')
  const dev = await evaluateAttempt(store, ws, a.id, {...o, split: 'dev'})
  t.match(dev.summary, {outcome: 'positive', mean: 0})
  const d = await promoteAttempt(store, ws, a.id, o)
  t.equal(d.verdict, 'accept', d.reasons.join('; '))
  t.equal(await ws.readRef('refs/heads/main'), d.merge)
  t.not(d.merge, main)
  t.equal((await ws.readFile(d.merge!, 'params.json'))?.toString(), '{"x": 5, "y": 2}\n')
  // and the trust checks re-derive it from the ledger and the contract alone
  const c = parseContract(contract, '.research/contracts/quad.yaml').contract!
  const authority = new Authority(await store.ledger(), {settings: trustSettings(undefined), contracts: new Map([[c.source.digest, c]])})
  t.match(authority.standing(d.decision), {ok: true})
  t.same(authority.problems(), [])
})

// Found under load in test/attempts/research-lanes.test.ts: two lanes promoting at once, the
// slower one failed with "main moved while exp was working" and exited non-zero.
t.test('another lane promotes while an attempt is decided: the decision is made again on the new main, not an error', async t => {
  const contract = CONTRACT.replace(/private_data:\n {2}- data\/secret.json\n/, '')
  const ws = new MemoryWorkspace()
  const main = ws.seed('main', {'eval.py': EVAL_PY.replace(/if split == "holdout":[\s\S]*?\n(?=score)/, ''), 'params.json': '{"x": 1, "y": 1}\n', '.research/contracts/quad.yaml': contract})
  const store = new MemoryRecordStore()
  const o = {lane: 'me', worktreeRoot: tempDir(t), redact: makeRedactor({env: {}}), mainRef: 'refs/heads/main'}
  const a = await openAttempt(store, ws, {...o, contract: 'quad'})
  fs.writeFileSync(path.join(a.dir, 'params.json'), '{"x": 5, "y": 2}\n')
  // the other lane's promotion lands between this lane's read of main and its move of main
  let other: string | undefined
  const racing = new Proxy(ws, {
    get(target, prop, receiver) {
      if (prop !== 'moveRef') return Reflect.get(target, prop, receiver)
      return async (ref: string, next: string, expected: string | undefined) => {
        if (ref === o.mainRef && !other) {
          other = await target.commitFiles({base: main, parents: [main], message: 'other lane: promote', files: [{path: 'params.json', content: Buffer.from('{"x": 4, "y": 2}\n')}]})
          await target.moveRef(ref, other, main)
        }
        return target.moveRef(ref, next, expected)
      }
    },
  })
  const d = await promoteAttempt(store, racing, a.id, o)
  t.ok(other, 'the other lane promoted in between')
  t.equal(d.verdict, 'reject', 'decided again: the attempt is no longer based on main')
  t.match(d.reasons.join('; '), /based on the current main: main moved since the attempt was opened/)
  t.equal(await ws.readRef(o.mainRef), other, "main is the other lane's promotion, not overwritten")
  const decisions = (await store.ledger()).select({kinds: ['decision']})
  t.equal(decisions.length, 1, 'one decision recorded, the second one')
  t.equal(decisions[0]!.id, d.decision)
})

// An attacker's attempt: params.json (editable) replaced by a symbolic link to a file the
// evaluator must never read (held-out data, a key). The link is committed as a link, the
// boundary names it, and the evaluator is never started.
t.test('an attempt that makes an editable file a symbolic link crosses its boundary: recorded invalid, the evaluator not run', async t => {
  const contract = CONTRACT.replace(/private_data:\n {2}- data\/secret.json\n/, '')
  const ws = new MemoryWorkspace()
  ws.seed('main', {'eval.py': EVAL_PY.replace(/if split == "holdout":[\s\S]*?\n(?=score)/, ''), 'params.json': '{"x": 1, "y": 1}\n', '.research/contracts/quad.yaml': contract})
  const store = new MemoryRecordStore()
  const secret = path.join(tempDir(t), 'secret.json')
  fs.writeFileSync(secret, '{"x": 5, "y": 2}\n')
  const o = {lane: 'me', worktreeRoot: tempDir(t), redact: makeRedactor({env: {}}), mainRef: 'refs/heads/main'}
  const a = await openAttempt(store, ws, {...o, contract: 'quad'})
  fs.rmSync(path.join(a.dir, 'params.json'))
  fs.symlinkSync(secret, path.join(a.dir, 'params.json'))
  await t.rejects(evaluateAttempt(store, ws, a.id, {...o, split: 'dev'}), {code: 'E_BOUNDARY', message: /not a regular file \(a symbolic link, a submodule, or \.gitattributes\/\.gitmodules\): params\.json/})
  // the baseline (main) was evaluated first, as it is for every attempt; then the attempt's own commit
  const ledger = await store.ledger()
  const own = ledger.records({kinds: ['observation']}).filter(x => x.body.attempt === a.id && x.body.source.commit !== x.body.source.base)
  t.ok(own.length >= 1, 'the attempt\'s own commit was observed')
  t.ok(own.every(x => x.body.ran === false), 'the evaluator was never started on it')
  t.same(own[0]!.body.boundary.links, ['params.json'])
  t.same(own[0]!.body.boundary.changed, ['params.json'])
  const verdicts = ledger.records({kinds: ['verdict']}).filter(v => own.some(x => x.id === v.body.observation))
  t.ok(verdicts.length >= 1 && verdicts.every(v => !v.body.valid && v.body.outcome === 'invalid' && v.body.violations.some(x => /not a regular file/.test(x))))
})

// Found by an attack sweep: promote made a commit of the attempt's work tree before dev and
// another before held-out, and merged the first. An agent still editing its work tree while
// dev ran had held-out judge its edit while main got the dev-judged commit.
t.test('an edit of the work tree while promote runs: held-out judges the commit dev judged, and that commit is merged', async t => {
  const {ws, store, o} = await memoryQuad(t)
  const a = await openAttempt(store, ws, {...o, contract: 'quad'})
  fs.writeFileSync(path.join(a.dir, 'params.json'), '{"x": 5, "y": 2}\n')
  let edited = false
  const d = await promoteAttempt(store, ws, a.id, {
    ...o,
    onProgress: line => {
      // the dev run has begun on the committed work tree: the agent edits on
      if (!edited && /^dev #0/.test(line)) {
        fs.writeFileSync(path.join(a.dir, 'params.json'), '{"x": -3, "y": 2}\n')
        edited = true
      }
    },
  })
  t.ok(edited, 'the work tree was edited while dev ran')
  t.equal(d.verdict, 'accept', d.reasons.join('; '))
  const ledger = await store.ledger()
  const own = ledger.records({kinds: ['verdict']}).filter(v => v.body.attempt === a.id)
  const commits = new Set(own.map(v => v.body.source?.commit))
  t.equal(commits.size, 1, 'dev and held-out judged one commit')
  t.same(new Set(own.map(v => v.body.split)), new Set(['dev', 'holdout']))
  t.equal((await ws.readFile(d.merge!, 'params.json'))?.toString(), '{"x": 5, "y": 2}\n', 'main has what was judged')
  t.equal((await ws.readFile([...commits][0]!, 'params.json'))?.toString(), '{"x": 5, "y": 2}\n')
  t.equal(fs.readFileSync(path.join(a.dir, 'params.json'), 'utf8'), '{"x": -3, "y": 2}\n', 'the later edit is left in the work tree, not lost')
})
