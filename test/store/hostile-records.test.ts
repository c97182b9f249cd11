import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {GitRecordStore} from '../../src/store/index.js'
import {canonicalJson, prepare, recordPath, seal} from '../../src/records/index.js'
import {makeRepo, git, handCommit} from '../helpers/repo.js'
import {sampleDraft} from '../helpers/records.js'
import {exp} from '../helpers/cli.js'

// Found by an attack sweep of the store: records a lane owner (or a remote `exp sync` takes
// from) can write with valid digests, each of which did more than fail its own checks.

/** A record of lane `lane` at `lamport`, sealed as exp seals it, with `volatile` (its JSON text) last, committed by hand on the lane. */
async function forge(repo: string, lane: string, lamport: number, text: string, volatile?: string): Promise<string> {
  const r = seal(prepare({kind: 'note', body: {text}, cites: []}), {lane, lamport, createdAt: '2026-01-01T00:00:00.000Z'})
  const file = recordPath('note', r.id)
  const json = canonicalJson(r)
  await handCommit(repo, lane, file, `${volatile === undefined ? json : `${json.slice(0, -1)},"volatile":${volatile}}`}\n`, `note: ${text}\n\nExp-Record: note/${r.id}\nExp-Schema: note@1\nExp-Lamport: ${lamport}\n`)
  return r.id
}

t.test("a record whose volatile field is nested 5,000 deep: that record is named and skipped, not its lane", async t => {
  const repo = await makeRepo(t)
  const s = await GitRecordStore.open(repo)
  const [genuine] = await s.appendBatch([sampleDraft('note', 1)], {lane: 'victim'})
  await s.close()
  // (volatile is outside the digest: the record's digest and id still check out)
  const bad = await forge(repo, 'victim', 50, 'deep', `{"x":${'['.repeat(5000)}${']'.repeat(5000)}}`)
  const l = await exp(['ledger', '--json'], {cwd: repo})
  t.equal(l.code, 0, l.stderr)
  t.same((JSON.parse(l.stdout) as {id: string}[]).map(r => r.id), [genuine!.id], 'the genuine record is read')
  t.match(l.stderr, new RegExp(`skipped refs/research/lanes/victim .*${bad}.*could not be checked`))
  t.notMatch(l.stderr, /cannot be read/)
  const i = await exp(['inspect', genuine!.id], {cwd: repo})
  t.equal(i.code, 0, i.stderr)
  const f = await exp(['fsck'], {cwd: repo})
  t.equal(f.code, 5)
  t.match(f.stdout + f.stderr, /nt-[0-9a-f]{24}\.json: record file could not be checked/)
  t.notMatch(f.stdout + f.stderr, /lane-unreadable/)
})

t.test('a lamport clock of 10^15 and more (any safe integer) reads from the cache without a false warning', async t => {
  const repo = await makeRepo(t)
  await forge(repo, 'big', 10 ** 15, 'far')
  await forge(repo, 'big', 2 ** 53 - 1, 'farthest')
  for (let k = 0; k < 3; k++) {
    const l = await exp(['ledger'], {cwd: repo})
    t.equal(l.code, 0)
    t.equal(l.stderr, '', `read ${k + 1}: no warning`)
    t.match(l.stdout, /9007199254740991/)
  }
})

t.test("a cache state whose generation names a path outside .git/exp: the lane is read again, nothing outside is touched", async t => {
  const repo = await makeRepo(t)
  const s = await GitRecordStore.open(repo)
  await s.appendBatch([sampleDraft('note', 1)], {lane: 'l'})
  await s.close()
  await exp(['ledger'], {cwd: repo})
  const cache = path.join(repo, '.git/exp/cache-v4')
  const outside = path.join(path.dirname(repo), `outside-${path.basename(repo)}`)
  fs.mkdirSync(outside)
  t.teardown(() => fs.rmSync(outside, {recursive: true, force: true}))
  const st = JSON.parse(fs.readFileSync(path.join(cache, 'state.json'), 'utf8'))
  const gen = st.lanes['refs/research/lanes/l'].gen
  for (const f of fs.readdirSync(cache).filter(f => f.startsWith(`refs~research~lanes~l.${gen}.`))) fs.renameSync(path.join(cache, f), path.join(outside, f.replace(`refs~research~lanes~l.${gen}`, 'x')))
  const before = fs.readdirSync(outside).map(f => [f, fs.readFileSync(path.join(outside, f), 'latin1')])
  st.lanes['refs/research/lanes/l'].gen = `1/${'../'.repeat(12)}${outside}/x`
  fs.writeFileSync(path.join(cache, 'state.json'), JSON.stringify(st))
  const a = await exp(['append', 'note', '-', '--lane', 'l'], {cwd: repo, input: 'text: two'})
  t.equal(a.code, 0, a.stderr)
  const l = await exp(['ledger', '--json'], {cwd: repo})
  t.equal(l.code, 0)
  t.equal(JSON.parse(l.stdout).length, 2, 'both records, read from history')
  t.same(fs.readdirSync(outside).map(f => [f, fs.readFileSync(path.join(outside, f), 'latin1')]), before, 'the files outside were neither read into the ledger nor written')
  await git(repo, 'status')
})

t.test("a file squatting an id anyone can compute (a run's manifest) does not refuse the real record, nor pass it off as written (sweep 37)", async t => {
  const repo = await makeRepo(t)
  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  const real = sampleDraft('manifest', 7)
  const {id, digest} = prepare(real)
  const squat = (lane: string, claimed: string) => {
    // another body at the manifest's path, under its id, on a lane of its own: (a) its own digest, (b) the real record's
    const other = seal(prepare(sampleDraft('manifest', 8)), {lane, lamport: 1, createdAt: '2026-01-01T00:00:00.000Z'})
    return handCommit(repo, lane, recordPath('manifest', id), canonicalJson({...other, id, digest: claimed}) + '\n', `manifest: squat\n\nExp-Record: manifest/${id}\nExp-Schema: ${other.schema}\nExp-Lamport: 1\n`)
  }
  await squat('0squat-a', prepare(sampleDraft('manifest', 8)).digest)
  await squat('0squat-b', digest)
  const [r] = await store.appendBatch([real], {lane: 'me'})
  t.match(r, {id, digest, status: 'created', lane: 'me'}, 'the real record is written on the lane (before: a conflict, or "exists" and nothing written)')
  const ledger = await store.ledger()
  t.equal(ledger.get(id)?.digest, digest, 'and it is the record of its id')
  t.same(ledger.load<'manifest'>(ledger.get(id)!).body, real.body)
})
