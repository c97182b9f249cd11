import t from 'tap'
import {execFileSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import {GitRecordStore} from '../../src/store/index.js'
import {fsck} from '../../src/store/git/fsck.js'
import {makeRepo} from '../helpers/repo.js'
import {sampleDraft} from '../helpers/records.js'

/**
 * Commits made by hand to be read differently by exp's readers: a lane's history is read
 * from git log (a full read, or many new commits), through cat-file (a few new commits, a
 * small lane) or by isomorphic-git, and a view must not depend on which one read it.
 */

type Ledger = Awaited<ReturnType<GitRecordStore['ledger']>>

/** The lane of `repo` read each way: a few new commits after a cache at `before`, many new after one at `early`, in full by git and by isomorphic-git. */
async function everyWay(repo: string, ref: string, tip: string, before: string, early: string): Promise<Record<string, Ledger>> {
  const out: Record<string, Ledger> = {}
  const read = async (how: string, cachedAt: string | undefined, native: boolean) => {
    fs.rmSync(path.join(repo, '.git/exp'), {recursive: true, force: true})
    if (cachedAt) {
      execFileSync('git', ['-C', repo, 'update-ref', ref, cachedAt])
      const s = await GitRecordStore.open(repo, {native})
      await s.ledger()
      await s.close()
      execFileSync('git', ['-C', repo, 'update-ref', ref, tip])
    }
    const s = await GitRecordStore.open(repo, {native})
    out[how] = await s.ledger()
    await s.close()
  }
  await read('new commits through cat-file', before, true)
  await read('new commits through git log', early, true)
  await read('in full through git log', undefined, true)
  await read('in full by isomorphic-git', undefined, false)
  return out
}

/** A copy of commit `oid` with `edit` applied to its raw bytes, written; its id. */
function forge(repo: string, oid: string, edit: (raw: Buffer, body: number) => Buffer): string {
  const raw = execFileSync('git', ['-C', repo, 'cat-file', 'commit', oid])
  return execFileSync('git', ['-C', repo, 'hash-object', '-t', 'commit', '-w', '--literally', '--stdin'], {input: edit(raw, raw.indexOf('\n\n') + 1)}).toString().trim()
}

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

t.test('a commit that names an encoding for its message: refused by every reader alike (git log re-codes it, cat-file does not)', async t => {
  const repo = await makeRepo(t)
  const store = await GitRecordStore.open(repo, {native: true})
  const made = await store.appendBatch(Array.from({length: 80}, (_, i) => sampleDraft('note', i)), {lane: 'l'})
  const [evil] = await store.appendBatch([sampleDraft('note', 99)], {lane: 'l'})
  await store.close()
  const ref = 'refs/research/lanes/l'
  // IBM037 re-codes every byte (git log shows no trailers at all); ISO-8859-1 leaves ASCII as it is
  for (const enc of ['IBM037', 'ISO-8859-1']) {
    const forged = forge(repo, evil!.commit!, (raw, body) => Buffer.concat([raw.subarray(0, body), Buffer.from(`encoding ${enc}\n`), raw.subarray(body)]))
    const ways = await everyWay(repo, ref, forged, made[79]!.commit!, made[5]!.commit!)
    for (const [how, l] of Object.entries(ways)) {
      t.equal(l.size, 80, `${enc}, ${how}: the record is not read`)
      t.ok(l.problems.some(p => p.commit === forged && p.code === 'commit-message' && p.message.includes(enc)), `${enc}, ${how}: named, with the encoding`)
    }
  }
})

t.test('tree and parent headers after the first ones: read as git reads them, the same by every reader', async t => {
  const repo = await makeRepo(t)
  const store = await GitRecordStore.open(repo, {native: true})
  const made = await store.appendBatch(Array.from({length: 80}, (_, i) => sampleDraft('note', i)), {lane: 'l'})
  const [last] = await store.appendBatch([sampleDraft('note', 99)], {lane: 'l'})
  await store.close()
  const ref = 'refs/research/lanes/l'
  // another tree (the lane's first commit's: no record 99 in it) and another parent, after the committer line
  const otherTree = execFileSync('git', ['-C', repo, 'rev-parse', `${made[0]!.commit!}^{tree}`]).toString().trim()
  const forged = forge(repo, last!.commit!, (raw, body) => Buffer.concat([raw.subarray(0, body), Buffer.from(`tree ${otherTree}\nparent ${made[3]!.commit!}\n`), raw.subarray(body)]))
  const shown = execFileSync('git', ['-C', repo, 'log', '-1', '--format=%P', forged]).toString().trim()
  t.equal(shown, made[79]!.commit!, 'git log shows one parent')
  const ways = await everyWay(repo, ref, forged, made[79]!.commit!, made[5]!.commit!)
  for (const [how, l] of Object.entries(ways)) {
    t.equal(l.size, 81, `${how}: its record read from its first tree, as git reads it`)
    t.equal(l.get(last!.id)?.commit, forged, how)
    t.same(l.problems, [], `${how}: no problem`)
  }
})

t.test('a record commit that also makes an older record file executable or a link (the same blob): named alike by every reader', async t => {
  const repo = await makeRepo(t)
  const store = await GitRecordStore.open(repo, {native: true})
  const made = await store.appendBatch(Array.from({length: 80}, (_, i) => sampleDraft('note', i)), {lane: 'l'})
  const [last] = await store.appendBatch([sampleDraft('note', 99)], {lane: 'l'})
  await store.close()
  const ref = 'refs/research/lanes/l'
  const files = execFileSync('git', ['-C', repo, 'ls-tree', '-r', last!.commit!]).toString().trim().split('\n')
  const older = files.find(l => l.includes(made[2]!.id))!
  for (const mode of ['100755', '120000']) {
    // the tip's tree with that file's mode changed, its blob the same
    const index = path.join(repo, '.git', `forge-${mode}`)
    const env = {...process.env, GIT_INDEX_FILE: index}
    execFileSync('git', ['-C', repo, 'read-tree', last!.commit!], {env})
    execFileSync('git', ['-C', repo, 'update-index', '--cacheinfo', `${mode},${older.split(/\s+/)[2]},${older.split('\t')[1]}`], {env})
    const tree = execFileSync('git', ['-C', repo, 'write-tree'], {env}).toString().trim()
    fs.rmSync(index, {force: true})
    const forged = forge(repo, last!.commit!, raw => Buffer.concat([Buffer.from(`tree ${tree}`), raw.subarray(raw.indexOf('\n'))]))
    const ways = await everyWay(repo, ref, forged, made[79]!.commit!, made[5]!.commit!)
    for (const [how, l] of Object.entries(ways)) {
      // (a full read of a plain lane takes the records from the tip's tree and makes no check
      // that needs a commit's diff: an executable record file is a plain one, its bytes the
      // record's own, checked; fsck names the commit. A link is not plain: read commit by commit)
      if (how === 'in full through git log' && mode === '100755') {
        t.equal(l.size, 81, `${mode}, ${how}: every record, each one's bytes checked`)
        continue
      }
      t.equal(l.size, 80, `${mode}, ${how}: the commit's record is not read`)
      t.ok(l.problems.some(p => p.commit === forged && p.code === 'commit-changes'), `${mode}, ${how}: named as a commit that changes another file`)
    }
    const s = await GitRecordStore.open(repo, {native: true})
    const report = await fsck(s)
    await s.close()
    t.ok(report.problems.some(p => p.commit === forged && p.code === 'commit-changes'), `${mode}: exp fsck names it`)
  }
})

t.test('replace refs and a graft file change nothing exp reads: the objects are what they say', async t => {
  const repo = await makeRepo(t)
  const store = await GitRecordStore.open(repo, {native: true})
  const made = await store.appendBatch(Array.from({length: 80}, (_, i) => ({...sampleDraft('note', i), key: `k/${i}`})), {lane: 'l'})
  await store.close()
  const ref = 'refs/research/lanes/l'
  const honest = await GitRecordStore.open(repo, {native: true})
  const want = (await honest.ledger()).records().map(r => JSON.stringify(r))
  await honest.close()
  // another record under the same key (the same id: a keyed id is its key's), its file put in
  // place of the first record's by `git replace`
  const other = path.join(repo, '..', `${path.basename(repo)}-other`)
  fs.mkdirSync(other)
  t.teardown(() => fs.rmSync(other, {recursive: true, force: true}))
  execFileSync('git', ['init', '-q', other])
  const o = await GitRecordStore.open(other, {native: true})
  const [twin] = await o.appendBatch([{...sampleDraft('note', 999), key: 'k/0'}], {lane: 'l'})
  await o.close()
  t.equal(twin!.id, made[0]!.id, 'the same id')
  const file = execFileSync('git', ['-C', other, 'ls-tree', '-r', `${ref}`]).toString().trim().split(/\s+/)[2]!
  const forgedBlob = execFileSync('git', ['-C', repo, 'hash-object', '-w', '--stdin'], {input: execFileSync('git', ['-C', other, 'cat-file', 'blob', file])}).toString().trim()
  const original = execFileSync('git', ['-C', repo, 'ls-tree', '-r', ref]).toString().split('\n').find(l => l.includes(made[0]!.id))!.split(/\s+/)[2]!
  execFileSync('git', ['-C', repo, 'replace', original, forgedBlob])
  // and a graft that cuts the lane's last commit off from all but its fifth ancestor
  fs.writeFileSync(path.join(repo, '.git/info/grafts'), `${made[79]!.commit!} ${made[74]!.commit!}\n`)
  t.match(execFileSync('git', ['-C', repo, 'cat-file', 'blob', original]).toString(), 'note 999', 'git itself now answers with the other bytes')
  const ways = await everyWay(repo, ref, made[79]!.commit!, made[78]!.commit!, made[5]!.commit!)
  for (const [how, l] of Object.entries(ways)) {
    t.same(l.records().map(r => JSON.stringify(r)), want, `${how}: the records as the objects hold them`)
    t.same(l.problems, [], `${how}: no problem`)
  }
  const s = await GitRecordStore.open(repo, {native: true})
  const report = await fsck(s)
  await s.close()
  t.same(report.problems, [], 'exp fsck: clean')
  t.equal(report.records, 80)
})

t.test("the user's git config does not change what a lane reads: root diff, signatures, output encoding, colour", async t => {
  const repo = await makeRepo(t)
  const store = await GitRecordStore.open(repo, {native: true})
  const made = await store.appendBatch(Array.from({length: 80}, (_, i) => ({...sampleDraft('note', i), body: {text: `nöte ${i} ✓`, about: []}})), {lane: 'l'})
  await store.close()
  const ref = 'refs/research/lanes/l'
  const plain = await GitRecordStore.open(repo, {native: true})
  const want = (await plain.ledger()).records().map(r => JSON.stringify(r))
  await plain.close()
  for (const [k, v] of [['log.showRoot', 'false'], ['log.showSignature', 'true'], ['i18n.logOutputEncoding', 'ISO-8859-1'], ['color.ui', 'always'], ['log.decorate', 'full']]) execFileSync('git', ['-C', repo, 'config', k!, v!])
  const ways = await everyWay(repo, ref, made[79]!.commit!, made[78]!.commit!, made[5]!.commit!)
  // (the lane's first commit is read as a root commit: a full read by the general reader too)
  for (const [how, l] of Object.entries(ways)) {
    t.same(l.records().map(r => JSON.stringify(r)), want, `${how}: the same records`)
    t.same(l.problems, [], `${how}: no problem`)
  }
  const s = await GitRecordStore.open(repo, {native: true})
  const report = await fsck(s)
  await s.close()
  t.same(report.problems, [], 'exp fsck: clean')
  t.equal(report.records, 80)
})

t.test('a record commit that also adds a file whose name git quotes (non-ASCII, a quote, a tab): named, the rest of the lane read, every way', async t => {
  const repo = await makeRepo(t)
  const store = await GitRecordStore.open(repo, {native: true})
  const made = await store.appendBatch(Array.from({length: 80}, (_, i) => sampleDraft('note', i)), {lane: 'l'})
  const [last] = await store.appendBatch([sampleDraft('note', 99)], {lane: 'l'})
  await store.close()
  const ref = 'refs/research/lanes/l'
  const name = 'research/naïve "q"\t✓.json'
  const env = {...process.env, GIT_INDEX_FILE: path.join(repo, '.git', 'forge-quoted')}
  execFileSync('git', ['-C', repo, 'read-tree', last!.commit!], {env})
  const blob = execFileSync('git', ['-C', repo, 'hash-object', '-w', '--stdin'], {input: 'x'}).toString().trim()
  execFileSync('git', ['-C', repo, 'update-index', '--add', '--cacheinfo', `100644,${blob},${name}`], {env})
  const tree = execFileSync('git', ['-C', repo, 'write-tree'], {env}).toString().trim()
  const forged = forge(repo, last!.commit!, raw => Buffer.concat([Buffer.from(`tree ${tree}`), raw.subarray(raw.indexOf('\n'))]))
  t.match(execFileSync('git', ['-C', repo, 'log', '-1', '--raw', '--format=', forged]).toString(), '\\303\\257', 'git log quotes the name in octal')
  const ways = await everyWay(repo, ref, forged, made[79]!.commit!, made[5]!.commit!)
  for (const [how, l] of Object.entries(ways)) {
    t.equal(l.size, 80, `${how}: every other record`)
    t.ok(l.problems.some(p => p.commit === forged && p.code === 'commit-changes' && p.message.includes('2 files')), `${how}: the commit named for its two files`)
  }
  const s = await GitRecordStore.open(repo, {native: true})
  const report = await fsck(s)
  await s.close()
  t.ok(report.problems.some(p => p.commit === forged && p.code === 'commit-changes'), 'exp fsck names it')
})

t.test('a record commit that also adds a submodule entry, read with diff.ignoreSubmodules=all: named every way', async t => {
  const repo = await makeRepo(t)
  const store = await GitRecordStore.open(repo, {native: true})
  const made = await store.appendBatch(Array.from({length: 80}, (_, i) => sampleDraft('note', i)), {lane: 'l'})
  const [last] = await store.appendBatch([sampleDraft('note', 99)], {lane: 'l'})
  await store.close()
  const env = {...process.env, GIT_INDEX_FILE: path.join(repo, '.git', 'forge-gitlink')}
  execFileSync('git', ['-C', repo, 'read-tree', last!.commit!], {env})
  execFileSync('git', ['-C', repo, 'update-index', '--add', '--cacheinfo', `160000,${made[0]!.commit!},research/sub`], {env})
  const tree = execFileSync('git', ['-C', repo, 'write-tree'], {env}).toString().trim()
  const forged = forge(repo, last!.commit!, raw => Buffer.concat([Buffer.from(`tree ${tree}`), raw.subarray(raw.indexOf('\n'))]))
  execFileSync('git', ['-C', repo, 'config', 'diff.ignoreSubmodules', 'all'])
  const ways = await everyWay(repo, 'refs/research/lanes/l', forged, made[79]!.commit!, made[5]!.commit!)
  for (const [how, l] of Object.entries(ways)) {
    t.equal(l.size, 80, `${how}: every other record`)
    t.ok(l.problems.some(p => p.commit === forged && p.code === 'commit-changes'), `${how}: the commit named`)
  }
})

t.test("a record's object file rewritten in place with another record's bytes under the same key: exp fsck names it", async t => {
  const repo = await makeRepo(t)
  const store = await GitRecordStore.open(repo, {native: true})
  // (more records than a read takes in process, where a loose object's id is checked: reader.ts, SMALL_READ)
  const made = await store.appendBatch(Array.from({length: 80}, (_, i) => ({...sampleDraft('note', i), key: `k/${i}`})), {lane: 'l'})
  // (one record appended alone: its objects are loose files, a batch's go into a pack)
  made[3] = await store.append({...sampleDraft('note', 3), key: 'k/x'}, {lane: 'l'})
  await store.close()
  const ref = 'refs/research/lanes/l'
  // the same key's other record, its object written beside (another repository made it)
  const other = path.join(repo, '..', `${path.basename(repo)}-twin`)
  fs.mkdirSync(other)
  t.teardown(() => fs.rmSync(other, {recursive: true, force: true}))
  execFileSync('git', ['init', '-q', other])
  const o = await GitRecordStore.open(other, {native: true})
  // (at the same place of a lane of the same name: its lamport and lane agree with the trailers)
  await o.appendBatch(Array.from({length: 80}, (_, i) => ({...sampleDraft('note', 500 + i), key: `o/${i}`})), {lane: 'l'})
  await o.append({...sampleDraft('note', 999), key: 'k/x'}, {lane: 'l'})
  await o.close()
  const twin = execFileSync('git', ['-C', other, 'ls-tree', '-r', ref]).toString().split('\n').find(l => l.includes(made[3]!.id))!.split(/\s+/)[2]!
  const original = execFileSync('git', ['-C', repo, 'ls-tree', '-r', ref]).toString().split('\n').find(l => l.includes(made[3]!.id))!.split(/\s+/)[2]!
  const file = (dir: string, oid: string) => path.join(dir, '.git', 'objects', oid.slice(0, 2), oid.slice(2))
  t.ok(fs.existsSync(file(repo, original)) && fs.existsSync(file(other, twin)), 'both objects are loose files')
  fs.chmodSync(file(repo, original), 0o644)
  fs.copyFileSync(file(other, twin), file(repo, original))
  t.match(execFileSync('git', ['-C', repo, 'cat-file', 'blob', original]).toString(), 'note 999', 'git answers the id with the other bytes')
  fs.rmSync(path.join(repo, '.git/exp'), {recursive: true, force: true})
  const s = await GitRecordStore.open(repo, {native: true})
  const report = await fsck(s)
  await s.close()
  t.ok(report.problems.some(p => p.code === 'record-unreadable' && p.id === made[3]!.id && p.message.includes('does not hash to its id')), `exp fsck names it: ${JSON.stringify(report.problems)}`)
  t.equal(report.records, 80, 'the other records pass')
})
