import t from 'tap'
import {execFileSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import {GitRecordStore} from '../../src/store/index.js'
import {makeRepo} from '../helpers/repo.js'
import {sampleDraft} from '../helpers/records.js'

// a commit message may hold any byte but NUL; one holding git log's own separators could pass
// the rest of its message off as a commit of its own: an id, parents and trailers of its choosing
t.test('a commit message written as git log entries is one commit with a problem, not the commits it spells out', async t => {
  const repo = await makeRepo(t)
  const store = await GitRecordStore.open(repo, {native: true})
  const made = await store.appendBatch(Array.from({length: 80}, (_, i) => sampleDraft('note', i)), {lane: 'l'})
  const [evil] = await store.appendBatch([sampleDraft('note', 99)], {lane: 'l'})
  await store.close()
  const raw = execFileSync('git', ['-C', repo, 'cat-file', 'commit', evil!.commit!])
  const at = raw.indexOf('\n\n') + 2
  // the message: `x`, then an entry of git log's format naming another commit (a real record commit's id) as its own
  const claimed = made[10]!.commit!
  const spelled = Buffer.from(`x\x01${claimed}\x02${made[9]!.commit!}\x02`)
  const forged = execFileSync('git', ['-C', repo, 'hash-object', '-t', 'commit', '-w', '--stdin'], {input: Buffer.concat([raw.subarray(0, at), spelled, raw.subarray(at)])}).toString().trim()
  execFileSync('git', ['-C', repo, 'update-ref', 'refs/research/lanes/l', forged, evil!.commit!])
  for (const how of ['cold', 'warm']) {
    if (how === 'cold') fs.rmSync(path.join(repo, '.git/exp'), {recursive: true, force: true})
    const s = await GitRecordStore.open(repo, {native: true})
    const ledger = await s.ledger()
    await s.close()
    t.equal(ledger.size, 80, `${how}: the forged commit's record is not read`)
    t.notOk(ledger.get(evil!.id), `${how}: not under its id`)
    t.equal(ledger.get(made[10]!.id)?.commit, claimed, `${how}: the claimed commit's own record keeps it`)
    const named = ledger.problems.map(p => p.commit ?? '')
    t.ok(named.includes(forged), `${how}: the forged commit is named: ${JSON.stringify(ledger.problems)}`)
    t.notOk(ledger.problems.some(p => p.commit && !/^[0-9a-f]{40}$/.test(p.commit)), `${how}: no problem names a commit id that is not one`)
  }

  // read as new commits: more than a near read takes (log.ts NEAR_COMMITS), so through git log
  const s = await GitRecordStore.open(repo, {native: true})
  const more = await s.appendBatch(Array.from({length: 70}, (_, i) => sampleDraft('note', 200 + i)), {lane: 'l'})
  await s.close()
  const after = await GitRecordStore.open(repo, {native: true})
  execFileSync('git', ['-C', repo, 'update-ref', 'refs/research/lanes/l', more.at(-1)!.commit!])
  const ledger = await after.ledger()
  await after.close()
  t.equal(ledger.size, 150, 'new commits: the forged one still not read')
  t.notOk(ledger.get(evil!.id))
  t.ok(ledger.problems.some(p => p.commit === forged), 'and named')
})

t.test('a forged commit read among more new commits than a near read takes: not read, named', async t => {
  const repo = await makeRepo(t)
  const store = await GitRecordStore.open(repo, {native: true})
  await store.appendBatch(Array.from({length: 10}, (_, i) => sampleDraft('note', i)), {lane: 'l'})
  t.equal((await store.ledger()).size, 10, 'the cache holds the lane at 10')
  const made = await store.appendBatch(Array.from({length: 70}, (_, i) => sampleDraft('note', 100 + i)), {lane: 'l'})
  const [evil] = await store.appendBatch([sampleDraft('note', 99)], {lane: 'l'})
  await store.close()
  const raw = execFileSync('git', ['-C', repo, 'cat-file', 'commit', evil!.commit!])
  const at = raw.indexOf('\n\n') + 2
  const spelled = Buffer.from(`x\x01${made[5]!.commit!}\x02${made[4]!.commit!}\x02`)
  const forged = execFileSync('git', ['-C', repo, 'hash-object', '-t', 'commit', '-w', '--stdin'], {input: Buffer.concat([raw.subarray(0, at), spelled, raw.subarray(at)])}).toString().trim()
  execFileSync('git', ['-C', repo, 'update-ref', 'refs/research/lanes/l', forged, evil!.commit!])
  const s = await GitRecordStore.open(repo, {native: true})
  const ledger = await s.ledger()
  await s.close()
  t.equal(ledger.size, 80, "71 new commits read from git log: all but the forged one's record")
  t.notOk(ledger.get(evil!.id))
  t.equal(ledger.get(made[5]!.id)?.commit, made[5]!.commit, 'the claimed commit keeps its own record')
  t.ok(ledger.problems.some(p => p.commit === forged && p.code === 'commit-message'), 'the forged commit is named')
})
