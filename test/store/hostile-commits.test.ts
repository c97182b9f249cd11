import t, {type Test} from 'tap'
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

const REF = 'refs/research/lanes/l'

/** A repository with lane l of 80 records (made with `draft`) and one more, `last`, the commit a test forges a copy of. */
async function lane80(t: Test, draft: (i: number) => ReturnType<typeof sampleDraft> = i => sampleDraft('note', i)) {
  const repo = await makeRepo(t)
  const store = await GitRecordStore.open(repo, {native: true})
  const made = await store.appendBatch(Array.from({length: 80}, (_, i) => draft(i)), {lane: 'l'})
  const [last] = await store.appendBatch([sampleDraft('note', 99)], {lane: 'l'})
  await store.close()
  return {repo, made, last: last!}
}

/** A copy of commit `oid` whose tree is its own with `entries` (`mode,blob,path`) put in: its id. */
function retree(repo: string, oid: string, entries: string[]): string {
  const env = {...process.env, GIT_INDEX_FILE: path.join(repo, '.git', 'forge-index')}
  execFileSync('git', ['-C', repo, 'read-tree', oid], {env})
  for (const e of entries) execFileSync('git', ['-C', repo, 'update-index', '--add', '--cacheinfo', e], {env})
  const tree = execFileSync('git', ['-C', repo, 'write-tree'], {env}).toString().trim()
  fs.rmSync(env.GIT_INDEX_FILE, {force: true})
  return forge(repo, oid, raw => Buffer.concat([Buffer.from(`tree ${tree}`), raw.subarray(raw.indexOf('\n'))]))
}

/**
 * Another repository's lane l, `before` records then one keyed `key` (the id a record of
 * `repo` has under that key: a keyed id is its key's); the path of the new record's blob's
 * loose object file there, and its id.
 */
async function twinOf(t: Test, repo: string, key: string, before: number): Promise<{oid: string; file: string}> {
  const other = path.join(repo, '..', `${path.basename(repo)}-twin`)
  fs.mkdirSync(other)
  t.teardown(() => fs.rmSync(other, {recursive: true, force: true}))
  execFileSync('git', ['init', '-q', other])
  const o = await GitRecordStore.open(other, {native: true})
  if (before) await o.appendBatch(Array.from({length: before}, (_, i) => ({...sampleDraft('note', 500 + i), key: `o/${i}`})), {lane: 'l'})
  // (appended alone: its objects are loose files; a batch's go into a pack)
  const twin = await o.append({...sampleDraft('note', 999), key}, {lane: 'l'})
  await o.close()
  const oid = blobOf(other, twin.id)
  return {oid, file: path.join(other, '.git', 'objects', oid.slice(0, 2), oid.slice(2))}
}

/** The blob id of record `id` on lane l of `dir`. */
function blobOf(dir: string, id: string): string {
  return execFileSync('git', ['-C', dir, 'ls-tree', '-r', REF]).toString().split('\n').find(l => l.includes(id))!.split(/\s+/)[2]!
}

/** Lane l read every way (everyWay, tip `tip`) gives `want` (the records as JSON) and no problem, and exp fsck is clean. */
async function sameEveryWay(t: Test, repo: string, made: {commit?: string | undefined}[], want: string[]): Promise<void> {
  const ways = await everyWay(repo, REF, made[79]!.commit!, made[78]!.commit!, made[5]!.commit!)
  for (const [how, l] of Object.entries(ways)) {
    t.same(l.records().map(r => JSON.stringify(r)), want, `${how}: the same records`)
    t.same(l.problems, [], `${how}: no problem`)
  }
  const s = await GitRecordStore.open(repo, {native: true})
  const report = await fsck(s)
  await s.close()
  t.same(report.problems, [], 'exp fsck: clean')
  t.equal(report.records, want.length)
}

/** Lane l, its tip the forged commit, read every way: 80 records, the commit named with `code`. */
async function namedEveryWay(t: Test, repo: string, made: {commit?: string | undefined}[], forged: string, code: string, label = ''): Promise<void> {
  const ways = await everyWay(repo, REF, forged, made[79]!.commit!, made[5]!.commit!)
  for (const [how, l] of Object.entries(ways)) {
    t.equal(l.size, 80, `${label}${how}: every other record, not the forged commit's`)
    t.ok(l.problems.some(p => p.commit === forged && p.code === code), `${label}${how}: the commit named (${code})`)
  }
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
  const {repo, made, last} = await lane80(t)
  // IBM037 re-codes every byte (git log shows no trailers at all); ISO-8859-1 leaves ASCII as it is
  for (const enc of ['IBM037', 'ISO-8859-1']) {
    const forged = forge(repo, last.commit!, (raw, body) => Buffer.concat([raw.subarray(0, body), Buffer.from(`encoding ${enc}\n`), raw.subarray(body)]))
    await namedEveryWay(t, repo, made, forged, 'commit-message', `${enc}, `)
    // (each way on its own, with what it said when it fails: one of them failed this once in a
    // fresh-clone CI, 2026-12-07, and not in any run since — which, and why, is not yet known)
    const ways = await everyWay(repo, REF, forged, made[79]!.commit!, made[5]!.commit!)
    for (const [how, l] of Object.entries(ways)) {
      const said = l.problems.filter(p => p.commit === forged).map(p => `${p.code}: ${p.message}`)
      t.equal(l.size, 80, `${enc}, ${how}, again: every other record, not the forged commit's`)
      t.ok(said.some(m => m.includes(enc)), `${enc}, ${how}: the problem names the encoding`, {said, problems: l.problems.length})
    }
  }
})

t.test('tree and parent headers after the first ones: read as git reads them, the same by every reader', async t => {
  const {repo, made, last} = await lane80(t)
  // another tree (the lane's first commit's: no record 99 in it) and another parent, after the committer line
  const otherTree = execFileSync('git', ['-C', repo, 'rev-parse', `${made[0]!.commit!}^{tree}`]).toString().trim()
  const forged = forge(repo, last.commit!, (raw, body) => Buffer.concat([raw.subarray(0, body), Buffer.from(`tree ${otherTree}\nparent ${made[3]!.commit!}\n`), raw.subarray(body)]))
  const shown = execFileSync('git', ['-C', repo, 'log', '-1', '--format=%P', forged]).toString().trim()
  t.equal(shown, made[79]!.commit!, 'git log shows one parent')
  const ways = await everyWay(repo, REF, forged, made[79]!.commit!, made[5]!.commit!)
  for (const [how, l] of Object.entries(ways)) {
    t.equal(l.size, 81, `${how}: its record read from its first tree, as git reads it`)
    t.equal(l.get(last.id)?.commit, forged, how)
    t.same(l.problems, [], `${how}: no problem`)
  }
})

t.test('a record commit that also makes an older record file executable or a link (the same blob): named alike by every reader', async t => {
  const {repo, made, last} = await lane80(t)
  const older = execFileSync('git', ['-C', repo, 'ls-tree', '-r', last.commit!]).toString().split('\n').find(l => l.includes(made[2]!.id))!
  for (const mode of ['100755', '120000']) {
    // the tip's tree with that file's mode changed, its blob the same
    const forged = retree(repo, last.commit!, [`${mode},${older.split(/\s+/)[2]},${older.split('\t')[1]}`])
    if (mode === '100755') {
      // (a full read of a plain lane takes the records from the tip's tree and makes no check
      // that needs a commit's diff: an executable record file is a plain one, its bytes the
      // record's own, checked; fsck names the commit. A link is not plain: read commit by commit)
      const ways = await everyWay(repo, REF, forged, made[79]!.commit!, made[5]!.commit!)
      for (const [how, l] of Object.entries(ways)) {
        const plain = how === 'in full through git log'
        t.equal(l.size, plain ? 81 : 80, `${mode}, ${how}: ${plain ? "every record, each one's bytes checked" : "the commit's record is not read"}`)
        if (!plain) t.ok(l.problems.some(p => p.commit === forged && p.code === 'commit-changes'), `${mode}, ${how}: named`)
      }
    } else await namedEveryWay(t, repo, made, forged, 'commit-changes', `${mode}, `)
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
  const want = (await store.ledger()).records().map(r => JSON.stringify(r))
  await store.close()
  // another record under the same key, its file put in place of the first record's by `git replace`
  const twin = await twinOf(t, repo, 'k/0', 0)
  const forgedBlob = execFileSync('git', ['-C', repo, 'hash-object', '-w', '--stdin'], {input: execFileSync('git', ['--git-dir', path.join(twin.file, '../../..'), 'cat-file', 'blob', twin.oid])}).toString().trim()
  const original = blobOf(repo, made[0]!.id)
  execFileSync('git', ['-C', repo, 'replace', original, forgedBlob])
  // and a graft that cuts the lane's last commit off from all but its fifth ancestor
  fs.writeFileSync(path.join(repo, '.git/info/grafts'), `${made[79]!.commit!} ${made[74]!.commit!}\n`)
  t.match(execFileSync('git', ['-C', repo, 'cat-file', 'blob', original]).toString(), 'note 999', 'git itself now answers with the other bytes')
  await sameEveryWay(t, repo, made, want)
})

t.test("the user's git config does not change what a lane reads: root diff, signatures, output encoding, colour", async t => {
  const repo = await makeRepo(t)
  const store = await GitRecordStore.open(repo, {native: true})
  const made = await store.appendBatch(Array.from({length: 80}, (_, i) => ({...sampleDraft('note', i), body: {text: `nöte ${i} ✓`, about: []}})), {lane: 'l'})
  const want = (await store.ledger()).records().map(r => JSON.stringify(r))
  await store.close()
  for (const [k, v] of [['log.showRoot', 'false'], ['log.showSignature', 'true'], ['i18n.logOutputEncoding', 'ISO-8859-1'], ['color.ui', 'always'], ['log.decorate', 'full']]) execFileSync('git', ['-C', repo, 'config', k!, v!])
  // (the lane's first commit is read as a root commit by fsck, and by a full read of the general reader)
  await sameEveryWay(t, repo, made, want)
})

t.test('a record commit that also adds a file whose name git quotes (non-ASCII, a quote, a tab): named, the rest of the lane read, every way', async t => {
  const {repo, made, last} = await lane80(t)
  const blob = execFileSync('git', ['-C', repo, 'hash-object', '-w', '--stdin'], {input: 'x'}).toString().trim()
  const forged = retree(repo, last.commit!, [`100644,${blob},research/naïve "q"\t✓.json`])
  t.match(execFileSync('git', ['-C', repo, 'log', '-1', '--raw', '--format=', forged]).toString(), '\\303\\257', 'git log quotes the name in octal')
  await namedEveryWay(t, repo, made, forged, 'commit-changes')
  const s = await GitRecordStore.open(repo, {native: true})
  const report = await fsck(s)
  await s.close()
  t.ok(report.problems.some(p => p.commit === forged && p.code === 'commit-changes'), 'exp fsck names it')
})

t.test('a record commit that also adds a submodule entry, read with diff.ignoreSubmodules=all: named every way', async t => {
  const {repo, made, last} = await lane80(t)
  const forged = retree(repo, last.commit!, [`160000,${made[0]!.commit!},research/sub`])
  execFileSync('git', ['-C', repo, 'config', 'diff.ignoreSubmodules', 'all'])
  await namedEveryWay(t, repo, made, forged, 'commit-changes')
})

t.test("a record's object file rewritten in place with another record's bytes under the same key: exp fsck names it", async t => {
  const repo = await makeRepo(t)
  const store = await GitRecordStore.open(repo, {native: true})
  // (more records than a read takes in process, where a loose object's id is checked: reader.ts, SMALL_READ)
  await store.appendBatch(Array.from({length: 80}, (_, i) => ({...sampleDraft('note', i), key: `k/${i}`})), {lane: 'l'})
  // (appended alone: its objects are loose files)
  const target = await store.append({...sampleDraft('note', 3), key: 'k/x'}, {lane: 'l'})
  await store.close()
  // (at the same place of a lane of the same name: its lamport and lane agree with the trailers)
  const twin = await twinOf(t, repo, 'k/x', 80)
  const original = blobOf(repo, target.id)
  const file = path.join(repo, '.git', 'objects', original.slice(0, 2), original.slice(2))
  t.ok(fs.existsSync(file) && fs.existsSync(twin.file), 'both objects are loose files')
  fs.chmodSync(file, 0o644)
  fs.copyFileSync(twin.file, file)
  t.match(execFileSync('git', ['-C', repo, 'cat-file', 'blob', original]).toString(), 'note 999', 'git answers the id with the other bytes')
  fs.rmSync(path.join(repo, '.git/exp'), {recursive: true, force: true})
  const s = await GitRecordStore.open(repo, {native: true})
  const report = await fsck(s)
  await s.close()
  t.ok(report.problems.some(p => p.code === 'record-unreadable' && p.id === target.id && p.message.includes('does not hash to its id')), `exp fsck names it: ${JSON.stringify(report.problems)}`)
  t.equal(report.records, 80, 'the other records pass')
})
