import t from 'tap'
import {spawn} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {BIN, exp} from '../helpers/cli.js'
import {GIT_ENV, git, makeRepo, node} from '../helpers/repo.js'
import {manifestDraft, runDrafts, type RunSpec, type Step} from '../helpers/mining.js'
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

const NOW = () => new Date('2026-01-01T00:00:00.000Z')

/** Train runs of a lane: its manifest, then each run's trace and verification. */
function lane(seed: number, specs: Record<string, RunSpec>): {drafts: RecordDraft[]; traces: string[]} {
  const manifest = manifestDraft('train', seed)
  const mid = prepare(manifest).id
  const drafts: RecordDraft[] = [manifest]
  const traces: string[] = []
  for (const [name, spec] of Object.entries(specs)) {
    const d = runDrafts(name, {...spec, manifest: mid})
    drafts.push(d.trace, d.verification)
    traces.push(prepare(d.trace).id)
  }
  return {drafts, traces}
}

/** Honest runs: a failure that passing runs recover from by ordering. */
const recovery = (passed: boolean, task: string): RunSpec => ({task, passed, steps: passed ? ['get_person', 'hand_out!EMPTY', 'order'] : ['get_person', 'hand_out!EMPTY']})
const honest = () => lane(1, Object.fromEntries(['A', 'B', 'C'].flatMap(task => [1, 2, 3, 4].map(n => [`${task}${n}`, recovery(n % 2 === 1, task)]))))

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

t.test("a lane's fabricated huge traces are mined in seconds, each named in a warning, and honest findings still found", async t => {
  const repo = await makeRepo(t)
  t.equal((await exp(['init'], {cwd: repo})).code, 0)
  const store = await gitStore(t, repo)
  await store.appendBatch(honest().drafts, {lane: 'alice', now: NOW})
  const text = Array.from({length: 2000}, (_, i) => `word${i} other${i}`).join(' ')
  const mallory = lane(2, Object.fromEntries([0, 1, 2].map(s => [`huge-${s}`, {task: 'H', text, passed: s !== 1, steps: huge(2500, s)}])))
  await store.appendBatch(mallory.drafts, {lane: 'mallory', now: NOW})
  const started = Date.now()
  const r = await exp(['mine', '--json', '--lane', 'me'], {cwd: repo, timeoutMs: 60_000})
  const took = Date.now() - started
  t.equal(r.code, 0, r.stderr)
  // (before: more than a minute for any one of them; the honest runs alone take about a second)
  t.ok(took < 10_000, `mined in ${took} ms`)
  for (const id of mallory.traces) t.match(r.stderr, new RegExp(`warning: trace ${id} is past the miner's budget of one trace: read \\d+ of its 2500 actions .*, 4096 of the ${text.length} characters of its task`), 'each cut trace is named')
  t.equal(r.stderr.match(/warning: trace/g)?.length, 3, 'and only those')
  const ledger = await store.ledger()
  const found = (JSON.parse(r.stdout) as {evidence: string[]}).evidence.map(id => ledger.load<'evidence'>(ledger.get(id)!).body)
  t.ok(found.some(e => e.signature === 'recovery_strategy:on_error:hand_out!EMPTY>order.' && e.support === 12), 'the honest recovery is found')
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
  const cut = mineFromLedger(await store.ledger()).cut
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

/** Runs that keep the miner busy for seconds, each within the budget: 32 tools, 16 failures, lists with ids, counts and approvals. */
function busy(s: number): Step[] {
  const hash = (i: number) => (Math.imul(i + 1, 2654435761) ^ Math.imul(s + 1, 40503)) >>> 0
  return Array.from({length: 256}, (_, i): Step => {
    const r = hash(i)
    if (s % 2 && i < 32 && i % 2) return {tool: `act_${r % 16}`, code: `E${i}`, args: {who: `p${r % 3}`}}
    if (r % 2) return {tool: `get_${r % 16}`, args: {who: `p${r % 3}`, item: `it${r % 5}`}, result: {id: `p${r % 3}`, requires_approval: true, held: [`it${r % 5}`, `it${(r + 1) % 5}`], items: [{item_id: `it${r % 5}`, left: r % 2}, {ticket_id: `t${r % 4}`, left: 0}]}}
    return {tool: `act_${(r >>> 3) % 16}`, args: {who: `p${r % 3}`, item: `it${r % 5}`, ticket: `t${(r >>> 5) % 4}`}, result: {id: `p${r % 3}`, open_blockers: r % 3}}
  })
}

t.test('SIGTERM or Ctrl-C during a long mining stops it at once, and nothing is written', async t => {
  const repo = await makeRepo(t)
  t.equal((await exp(['init'], {cwd: repo})).code, 0)
  const store = await gitStore(t, repo)
  await store.appendBatch(lane(4, Object.fromEntries(Array.from({length: 96}, (_, s) => [`busy-${s}`, {task: 'T', passed: s % 2 === 0, steps: busy(s)}]))).drafts, {lane: 'mallory', now: NOW})
  for (const [signal, code] of [['SIGTERM', 143], ['SIGINT', 130]] as const) {
    const child = spawn(...node([BIN, 'mine', '--lane', 'me']), {cwd: repo, env: GIT_ENV, stdio: ['ignore', 'ignore', 'pipe']})
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
    t.equal((await git(repo, 'for-each-ref', 'refs/research/lanes/me')).trim(), '', `${signal}: nothing written`)
  }
})
