import t from 'tap'
import {MemoryRecordStore} from '../../src/store/index.js'
import {doneNote, iterationNote, readRun, startNote} from '../../src/loop/evolve-run.js'

// Found attacking as the owner of another lane: a run's notes have keys (`evolve/<identity>/…`)
// whose ids name no lane, and the identity is a digest of options anyone can guess. Notes
// planted on lane mallory under alice's run's keys — "started", then "finished" — made
// `exp evolve --lane alice` answer "has finished already" and run nothing (shown on the
// onboarding example by hand). Only the run's own lane counts now.

const ID = '87a3e9281be09275'
const MAIN = 'c'.repeat(40)

t.test("notes another lane writes under a run's keys neither start nor finish it; the run writes its own beside them", async t => {
  const store = new MemoryRecordStore()
  const planted = {iterations: [], identity: ID, generation: 1, start: 'f'.repeat(40)}
  await store.append(startNote(await store.ledger(), planted, {skill: 'onboarding', lane: 'alice', iterations: 1, start: 'f'.repeat(40)}), {lane: 'mallory'})
  await store.append(iterationNote(await store.ledger(), 'mallory', planted, {iteration: 1, main: 'f'.repeat(40), episodes: 0}, 1), {lane: 'mallory'})
  await store.append(doneNote(await store.ledger(), 'mallory', planted, {iterations: 1, promoted: 0, rejected: 0}), {lane: 'mallory'})
  t.same(readRun(await store.ledger(), ID, 'alice'), {identity: ID, generation: 1, iterations: []}, "not started: mallory's notes are not alice's")
  // a note under a run's key with no commit in it at all (read before as `COMMIT.exec(text)!`: a TypeError)
  await store.append({kind: 'note', key: `evolve/${ID}0/1`, body: {text: 'no commit here', action: 'comment'}}, {lane: 'alice'})
  t.same(readRun(await store.ledger(), `${ID}0`, 'alice'), {identity: `${ID}0`, generation: 1, iterations: []}, 'a start note without its commit starts nothing')

  // the run writes its own notes; where mallory holds a key's id, under a salted key
  const ledger = await store.ledger()
  const s1 = {identity: ID, generation: 1, iterations: []}
  const start = startNote(ledger, s1, {skill: 'onboarding', lane: 'alice', iterations: 1, start: MAIN})
  t.equal(start.key, `evolve/${ID}/1@alice`, 'the key mallory holds, salted with the lane')
  t.equal((await store.append(start, {lane: 'alice'})).status, 'created')
  const it = {iteration: 1, main: 'd'.repeat(40), episodes: 12}
  await store.append(iterationNote(await store.ledger(), 'alice', {...s1, start: MAIN}, it, 1), {lane: 'alice'})
  const mid = readRun(await store.ledger(), ID, 'alice')
  t.equal(mid.start, MAIN, "alice's start, not mallory's")
  t.same(mid.iterations.map(i => [i.iteration, i.main, i.episodes]), [[1, 'd'.repeat(40), 12]])
  t.notOk(mid.finished, 'and not finished: mallory said so, alice did not')
  await store.append(doneNote(await store.ledger(), 'alice', {...s1, start: MAIN, iterations: [it]}, {iterations: 1, promoted: 0, rejected: 0}), {lane: 'alice'})
  t.ok(readRun(await store.ledger(), ID, 'alice').finished, 'finished once alice says so')
  t.equal(readRun(await store.ledger(), ID, 'alice', {next: true}).generation, 2, '--continue: the next generation')
})

t.test("past a lane-salted key another lane holds too: the run writes under a numbered one and reads it", async t => {
  const store = new MemoryRecordStore()
  const s1 = {identity: ID, generation: 1, iterations: []}
  // mallory writes "started" under the run's key and under the key salted with alice's lane
  for (const key of [`evolve/${ID}/1`, `evolve/${ID}/1@alice`]) await store.append({kind: 'note', key, body: {text: `evolve run ${ID}/1 started: on lane alice from main ${'f'.repeat(40)}`, action: 'comment'}}, {lane: 'mallory'})
  t.same(readRun(await store.ledger(), ID, 'alice'), {identity: ID, generation: 1, iterations: []})
  const start = startNote(await store.ledger(), s1, {skill: 'onboarding', lane: 'alice', iterations: 1, start: MAIN})
  t.equal(start.key, `evolve/${ID}/1@alice#2`)
  t.equal((await store.append(start, {lane: 'alice'})).status, 'created', 'not refused: E_CONFLICT before')
  t.equal(readRun(await store.ledger(), ID, 'alice').start, MAIN, "alice's own start")
})
