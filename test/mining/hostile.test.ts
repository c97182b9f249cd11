import t from 'tap'
import {spawn} from 'node:child_process'
import fs, {readFileSync} from 'node:fs'
import {BIN, exp} from '../helpers/cli.js'
import {GIT_ENV, git, node, tempDir} from '../helpers/repo.js'
import {exampleTrained, exampleTrainedOnce} from '../helpers/cli-fixtures.js'
import {fixtureVerdicts, manifestDraft, numbered, runDrafts, type RunSpec, type Step} from '../helpers/mining.js'
import {mineFromLedger} from '../../src/mining/index.js'
import {prepare, type RecordDraft} from '../../src/records/index.js'
import {GitRecordStore, MemoryRecordStore} from '../../src/store/index.js'

// Found attacking the miner as the owner of another lane: the records of every lane feed
// `exp mine` and the mining step of `exp evolve`, and a lane can append any trace that passes
// the schema. Three fabricated traces of 2,500 actions (a tool of their own at each, every
// third failing with a code of its own, results holding strings of their own, a task text of
// 36,000 characters naming them) kept `exp mine` busy for more than a minute (three of 1,600
// actions: 117 s), deaf to SIGTERM and Ctrl-C the whole time: the miner's work grew with the
// cube of a run's length (every pair of tools checked by scanning the run again) and with
// values × text for each result. Now each trace is read up to the miner's budget
// (src/mining/view.ts TRACE_BUDGET, docs/trust.md), the rest named in a warning, and the miner gives the event loop a turn every few milliseconds (src/mining/steps.ts).
// Since then a verdict is learned from only when its trace replays to it (src/mining/verdicts.ts):
// a fabricated trace is dropped at its first action that the world does not give, before the
// miner reads it. The budget still bounds a real trace of a long run.

const NOW = () => new Date('2026-01-01T00:00:00.000Z')

/** Train runs of a lane: its manifest, then each run's trace and verification. */
function lane(seed: number, specs: Record<string, RunSpec>): {drafts: RecordDraft[]; traces: string[]} {
  const manifest = manifestDraft('train', seed)
  const mid = prepare(manifest).id
  const drafts: RecordDraft[] = [manifest]
  const traces: string[] = []
  for (const [name, spec] of Object.entries(numbered(specs))) {
    const d = runDrafts(name, {...spec, manifest: mid})
    drafts.push(d.trace, d.verification)
    traces.push(prepare(d.trace).id)
  }
  return {drafts, traces}
}


/** A fabricated trace: `n` actions, each of a tool of its own, every third one failing with a code of its own. */
function huge(n: number, seed: number): Step[] {
  return Array.from({length: n}, (_, i): Step => {
    if (i % 3 === 2) return {tool: `act_${seed}_${i}`, code: `E${i}`, args: {x: `v${i}`}}
    if (i % 3 === 1) return {tool: `act_${seed}_${i}`, args: {x: `v${i}`, y: `v${i - 1}`}}
    return {tool: `get_${seed}_${i}`, args: {x: `v${i}`}, result: {id: `v${i}`, name: `word${i} other${i} thing${i}`, team: `team${i % 97}`, items: [{id: `v${i + 1}`, left: 0}]}}
  })
}

async function gitStore(t: {teardown(fn: () => unknown): void}, repo: string): Promise<GitRecordStore> {
  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  return store
}

t.test("a lane's fabricated huge traces under a manifest of the real scenarios cost the miner one action each: their verdicts do not replay", async t => {
  const repo = await exampleTrainedOnce(t)
  const clean = tempDir(t)
  fs.cpSync(repo, clean, {recursive: true})
  const alone = JSON.parse((await exp(['mine', '--json', '--lane', 'me'], {cwd: clean})).stdout) as {evidence: string[]}
  t.ok(alone.evidence.length >= 3, `the honest runs teach something: ${alone.evidence.length} evidence records`)
  const store = await gitStore(t, repo)
  const honest = (await store.ledger()).records({kinds: ['manifest']}).find(m => m.body.split === 'train')!
  // mallory's own train manifest, pinning the real scenarios, and three huge traces of a real scenario with verdicts of its own
  const manifest: RecordDraft<'manifest'> = {kind: 'manifest', body: {...honest.body, seed: 999, repeat: 3}}
  const mid = prepare(manifest).id
  const text = Array.from({length: 2000}, (_, i) => `word${i} other${i}`).join(' ')
  const scenario = honest.body.dataset.scenarios[0]!
  const drafts: RecordDraft[] = [manifest]
  for (const s of [0, 1, 2]) {
    const d = runDrafts(`huge-${s}`, {task: scenario, text, passed: s !== 1, steps: huge(2500, s), manifest: mid, repetition: s})
    drafts.push(d.trace, d.verification)
  }
  await store.appendBatch(drafts, {lane: 'mallory', now: NOW})
  const started = Date.now()
  const r = await exp(['mine', '--json', '--lane', 'me'], {cwd: repo, timeoutMs: 60_000})
  const took = Date.now() - started
  t.equal(r.code, 0, r.stderr)
  t.ok(took < 10_000, `mined in ${took} ms`)
  const out = JSON.parse(r.stdout) as {evidence: string[]; forged?: number}
  t.equal(out.forged, 3, 'the three verdicts are ignored and counted: the traces do not replay')
  t.notMatch(r.stderr, /past the miner's budget/, 'no fabricated trace is read at all')
  t.same([...out.evidence].sort(), [...alone.evidence].sort(), 'the honest runs teach what they taught alone')
})

t.test('the budget of one trace: what is read, what is left out and named; a trace within it is read whole', async t => {
  const store = new MemoryRecordStore()
  const steps = (n: number, step: (i: number) => Step) => Array.from({length: n}, (_, i) => step(i))
  const {drafts, traces} = lane(3, {
    plain: {task: 'A', passed: true, steps: steps(256, i => `tool_${i % 32}`)},
    long: {task: 'A', passed: true, steps: steps(300, i => `tool_${i % 32}`)},
    tools: {task: 'A', passed: true, steps: steps(40, i => `tool_${i}`)},
    failures: {task: 'A', passed: false, steps: steps(20, i => `tool_0!E${i}`)},
    bytes: {task: 'A', passed: true, steps: steps(4, i => ({tool: 'get_blob', args: {n: i}, result: {blob: 'x'.repeat(100_000)}}))},
    text: {task: 'A', passed: true, text: 'y'.repeat(5000), steps: ['get_person']},
  })
  await store.appendBatch(drafts, {lane: 'mallory', now: NOW})
  const cut = mineFromLedger(await store.ledger(), {verdicts: fixtureVerdicts}).cut
  const [plain, long, tools, failures, bytes, text] = traces
  const what = new Map(cut.map(c => [c.id, c.what]))
  t.notOk(what.has(plain!), 'a trace within every bound is read whole')
  t.equal(what.get(long!), 'read 256 of its 300 actions (at most 256 actions)')
  t.equal(what.get(tools!), 'read 32 of its 40 actions (at most 32 tools)')
  t.equal(what.get(failures!), 'read 16 of its 20 actions (at most 16 distinct failures)')
  t.equal(what.get(bytes!), 'read 2 of its 4 actions (at most 256 KiB of arguments and results)')
  t.equal(what.get(text!), '4096 of the 5000 characters of its task')
  t.equal(cut.length, 5)
})

/** CPU seconds a process has used so far (Linux: /proc/PID/stat, in clock ticks of 1/100 s). */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return 0
  }
}

t.test('SIGTERM or Ctrl-C during a long mining stops it at once, and nothing is written', async t => {
  // real runs (a verdict is learned from only when it replays): every training scenario 20 times, seconds of mining
  const repo = await exampleTrained(t, 20)
  for (const [signal, code] of [['SIGTERM', 143], ['SIGINT', 130]] as const) {
    const child = spawn(...node([BIN, 'mine', '--lane', 'miner']), {cwd: repo, env: GIT_ENV, stdio: ['ignore', 'ignore', 'pipe']})
    let stderr = ''
    child.stderr.on('data', d => (stderr += d))
    let ended = false
    const closed = new Promise<number | null>(resolve => child.on('close', c => ((ended = true), resolve(c))))
    // signalled once it is mining: past the start and the ledger read (under a CPU second)
    while (!ended && cpuSeconds(child.pid!) < 1.2) await new Promise(r => setTimeout(r, 50))
    t.notOk(ended, `${signal}: still mining when signalled`)
    const sent = Date.now()
    child.kill(signal)
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000)
    const status = await closed
    clearTimeout(killer)
    const took = Date.now() - sent
    t.equal(status, code, `${signal}: exits as the signal would have it`)
    t.ok(took < 2000, `${signal}: exited ${took} ms after the signal`)
    t.match(stderr, /interrupted: what was written stays/)
    t.equal((await git(repo, 'for-each-ref', 'refs/research/lanes/miner')).trim(), '', `${signal}: nothing written`)
  }
})
