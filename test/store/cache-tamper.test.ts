import t, {type Test} from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import zlib from 'node:zlib'
import {GitRecordStore} from '../../src/store/index.js'
import {fsck} from '../../src/store/git/fsck.js'
import {makeRepo} from '../helpers/repo.js'
import {sampleDraft} from '../helpers/records.js'
import {exp, expJson} from '../helpers/cli.js'

const CACHE = '.git/exp/cache-v4'

/** A repository with notes on two lanes and a built cache; returns the records as the ledger gives them. */
async function cached(t: Test): Promise<{repo: string; records: {id: string; body: {text: string}; digest: string}[]}> {
  const repo = await makeRepo(t)
  const s = await GitRecordStore.open(repo)
  await s.appendBatch([1, 2, 3, 4].map(n => sampleDraft('note', n)), {lane: 'a'})
  await s.appendBatch([5, 6].map(n => sampleDraft('note', n)), {lane: 'b'})
  await s.close()
  const records = await expJson<{id: string; body: {text: string}; digest: string}[]>(['ledger'], {cwd: repo})
  t.equal(records.length, 6)
  return {repo, records}
}

const file = (repo: string, suffix: string) => {
  const f = fs.readdirSync(path.join(repo, CACHE)).find(x => x.startsWith('refs~research~lanes~a.') && x.endsWith(suffix))!
  return path.join(repo, CACHE, f)
}

/**
 * Edit lane a's index as a deliberate tamperer would: `change` edits its lines in place (the
 * columns of a line are tab-separated: commit first), and the CRC in state.json is made to match.
 */
function editIndex(repo: string, change: (lines: string[]) => void): void {
  const f = file(repo, '.idx')
  const lines = fs.readFileSync(f, 'latin1').split('\n')
  change(lines)
  const idx = Buffer.from(lines.join('\n'), 'latin1')
  fs.writeFileSync(f, idx)
  const sf = path.join(repo, CACHE, 'state.json')
  const st = JSON.parse(fs.readFileSync(sf, 'utf8'))
  const lane = st.lanes['refs/research/lanes/a']
  lane.crc = zlib.crc32(idx.subarray(0, lane.idxBytes))
  fs.writeFileSync(sf, JSON.stringify(st))
}

/** Set column `col` of the index line at `at` to `value`. */
function setColumn(lines: string[], at: number, col: number, value: string): void {
  const cols = lines[at]!.split('\t')
  cols[col] = value
  lines[at] = cols.join('\t')
}

t.test("a record's text edited inside a data file is never returned: the ledger reads history instead and says so", async t => {
  const {repo, records} = await cached(t)
  const dat = file(repo, '.note.dat')
  const before = fs.readFileSync(dat, 'utf8')
  fs.writeFileSync(dat, before.replace('"text":"note 2"', '"text":"NOTE 9"')) // same length: offsets still fit
  const l = await exp(['ledger', '--json'], {cwd: repo})
  t.equal(l.code, 0)
  t.same(JSON.parse(l.stdout), records, 'the original records, next to their digests')
  t.notMatch(l.stdout, /NOTE 9/)
  t.match(l.stderr, /warning: the cache of refs\/research\/lanes\/a does not match .*digest/)
  const one = records[1]!
  const i = await expJson<{record: {body: {text: string}}}>(['inspect', one.id], {cwd: repo})
  t.equal(i.record.body.text, 'note 2', 'inspect gives the original too')
  t.same(await expJson(['ledger'], {cwd: repo}), records, 'and the cache was rebuilt: the next read is clean')
  t.notMatch(fs.readFileSync(file(repo, '.note.dat'), 'utf8'), /NOTE 9/)
})

t.test('a store asked again gives the records it checked before; an edit made meanwhile is caught by every other read', async t => {
  const {repo, records} = await cached(t)
  const warnings: string[] = []
  const s = await GitRecordStore.open(repo, {onWarning: w => warnings.push(w)})
  t.teardown(() => s.close())
  const bodies = (rs: {body: unknown}[]) => rs.map(r => r.body)
  t.same(bodies((await s.ledger()).records()), bodies(records), 'read from the cache and checked')
  const dat = file(repo, '.note.dat')
  fs.writeFileSync(dat, fs.readFileSync(dat, 'utf8').replace('"text":"note 2"', '"text":"NOTE 9"'))
  t.same(bodies((await s.ledger()).records()), bodies(records), 'asked again: the checked copies, not the edited file')
  t.same(warnings, [], 'nothing was read again')
  // a streamed --json reads the files in one pass and keeps no copies: it finds the edit
  const ledger = await s.ledger()
  t.notMatch(Buffer.concat(ledger.recordBytes(ledger.select())).toString(), /NOTE 9/)
  t.match(warnings.join('\n'), /the cache of refs\/research\/lanes\/a does not match/)
  const other = await GitRecordStore.open(repo, {onWarning: () => undefined})
  t.same(bodies((await other.ledger()).records()), bodies(records), 'another store (a new process) reads the rebuilt cache')
  await other.close()
})

t.test('every record of a data file rewritten: all read from history in one batch, and the cache rebuilt', async t => {
  const {repo, records} = await cached(t)
  const dat = file(repo, '.note.dat')
  fs.writeFileSync(dat, fs.readFileSync(dat, 'utf8').replaceAll('"text":"note', '"text":"NOTE'))
  const s = await GitRecordStore.open(repo, {onWarning: () => undefined})
  const ledger = await s.ledger()
  t.same(ledger.records().map(r => r.body), records.map(r => r.body), 'each body is the one history has')
  await s.close()
  const again = await exp(['ledger', '--json'], {cwd: repo})
  t.equal(again.stderr, '', 'the next read finds a clean cache')
  t.same(JSON.parse(again.stdout), records)
  t.equal(fs.readdirSync(path.join(repo, CACHE)).filter(f => f.startsWith('refs~research~lanes~a.') && f.endsWith('.note.dat')).length, 1, 'and only one generation of its files')
})

t.test('a lowered count in state.json, an edited index line, a truncated index: detected, the lane rebuilt, nothing hidden', async t => {
  const edits: [string, (repo: string) => void][] = [
    ['count lowered', repo => {
      const f = path.join(repo, CACHE, 'state.json')
      const st = JSON.parse(fs.readFileSync(f, 'utf8'))
      st.lanes['refs/research/lanes/a'].count = 2
      fs.writeFileSync(f, JSON.stringify(st))
    }],
    ['count and index size lowered together', repo => {
      const f = path.join(repo, CACHE, 'state.json')
      const st = JSON.parse(fs.readFileSync(f, 'utf8'))
      const lanes = st.lanes['refs/research/lanes/a']
      const idx = fs.readFileSync(file(repo, '.idx'), 'latin1')
      lanes.count = 2
      lanes.idxBytes = idx.split('\n').slice(0, 2).join('\n').length + 1
      fs.writeFileSync(f, JSON.stringify(st))
    }],
    ['an index line edited (lamport)', repo => {
      const f = file(repo, '.idx')
      const lines = fs.readFileSync(f, 'latin1').split('\n')
      const cols = lines[1]!.split('\t')
      cols[4] = '99'
      lines[1] = cols.join('\t')
      fs.writeFileSync(f, lines.join('\n'), 'latin1')
    }],
    ['an index line edited (offset past the data)', repo => {
      const f = file(repo, '.idx')
      fs.writeFileSync(f, fs.readFileSync(f, 'latin1').replace(/\t(\d+)\t(\d+)\t(\d+)\t/, '\t$1\t9999999\t$3\t'), 'latin1')
    }],
    ['the index cut short', repo => fs.truncateSync(file(repo, '.idx'), 30)],
    // the CRC in state.json detects an accidental edit, not a deliberate one: an index line
    // edited and the CRC made to match passes the cache's own checks, and the body's check
    // finds it (the command failed then, though history is intact)
    ...(['digest', 'lamport'] as const).map((col): [string, (repo: string) => void] => [`an index line edited (${col}), its CRC made to match`, repo => editIndex(repo, lines => setColumn(lines, 1, col === 'digest' ? 3 : 4, col === 'digest' ? `sha256:${'0'.repeat(64)}` : '99'))]),
    // an entry keeps where its columns start as one number: a line that does not fit it is refused whole
    ['an index line edited (an id of 28 characters), its CRC made to match', repo => editIndex(repo, lines => setColumn(lines, 1, 1, `${lines[1]!.split('\t')[1]}0`))],
    ['an index line edited (a commit of 300 characters), its CRC made to match', repo => editIndex(repo, lines => setColumn(lines, 1, 0, 'a'.repeat(300)))],
    ['state.json is not JSON', repo => fs.writeFileSync(path.join(repo, CACHE, 'state.json'), '{"format": 4, "lanes": ')],
    ['state.json names a data file of an unknown kind', repo => {
      const f = path.join(repo, CACHE, 'state.json')
      const st = JSON.parse(fs.readFileSync(f, 'utf8'))
      st.lanes['refs/research/lanes/a'].dat = {'../../x': 1}
      fs.writeFileSync(f, JSON.stringify(st))
    }],
  ]
  for (const [what, edit] of edits) {
    const {repo, records} = await cached(t)
    edit(repo)
    const l = await exp(['ledger', '--json'], {cwd: repo})
    t.equal(l.code, 0, `${what}: exit 0`)
    t.same(JSON.parse(l.stdout), records, `${what}: every record, as it is in history`)
    t.notMatch(l.stderr, /unexpected|\n\s+at /, `${what}: no crash`)
    const s = await GitRecordStore.open(repo, {onWarning: () => undefined})
    t.same((await s.ledger()).records().map(r => r.id), records.map(r => r.id), `${what}: in process too`)
    await s.close()
  }
})

t.test('fsck never reads the cache: the same report with a garbled, missing or unreadable cache', async t => {
  const {repo} = await cached(t)
  const clean = await exp(['fsck', '--json'], {cwd: repo})
  t.equal(clean.code, 0)
  for (const f of fs.readdirSync(path.join(repo, CACHE))) fs.writeFileSync(path.join(repo, CACHE, f), 'garbage\tgarbage\n')
  const garbled = await exp(['fsck', '--json'], {cwd: repo})
  t.equal(garbled.code, 0, garbled.stderr)
  t.same(JSON.parse(garbled.stdout), JSON.parse(clean.stdout))
  fs.rmSync(path.join(repo, '.git/exp'), {recursive: true})
  fs.writeFileSync(path.join(repo, '.git/exp'), 'a file where the cache folder should be')
  const s = await GitRecordStore.open(repo)
  const report = await fsck(s)
  t.same(report.problems, [])
  t.equal(report.records, 6)
  await s.close()
})

t.test('every record of a data file rewritten, read one at a time: one warning for the lane, records read from history a window at a time, not one git process each', async t => {
  const repo = await makeRepo(t)
  const s = await GitRecordStore.open(repo)
  await s.appendBatch(Array.from({length: 600}, (_, n) => sampleDraft('note', n + 1)), {lane: 'a'})
  await s.close()
  const records = await expJson<{id: string; body: {text: string}}[]>(['ledger'], {cwd: repo})
  t.equal(records.length, 600)
  // the same size (the state and the index still agree with it), every record's bytes changed
  const rewrite = () => {
    const dat = file(repo, '.note.dat')
    fs.writeFileSync(dat, fs.readFileSync(dat, 'utf8').replaceAll('"text":"note', '"text":"NOTE'))
  }
  // the table loads one record at a time: before, each was a warning and a git cat-file of its own
  rewrite()
  const l = await exp(['ledger'], {cwd: repo})
  t.equal(l.code, 0)
  t.equal(l.stdout.trim().split('\n').length, 601, 'a line per record')
  t.notMatch(l.stdout, /NOTE/, 'none of them edited')
  t.equal(l.stderr.match(/warning: the cache of refs\/research\/lanes\/a does not match the records it holds/g)?.length, 1, 'one warning for the lane')
  const next = await exp(['ledger', '--json'], {cwd: repo})
  t.same(JSON.parse(next.stdout), records)
  t.notMatch(next.stderr, /warning/, 'the next read finds the cache rebuilt')
  rewrite()
  const warnings: string[] = []
  const store = await GitRecordStore.open(repo, {onWarning: w => warnings.push(w)})
  t.teardown(() => store.close())
  const ledger = await store.ledger()
  const texts = ledger.select().map(e => (ledger.load(e) as unknown as {body: {text: string}}).body.text)
  t.same(texts, records.map(r => r.body.text), 'every record, as history holds it')
  t.equal(warnings.length, 1, 'one warning')
  t.ok(store.historyReads >= 1 && store.historyReads <= 3, `read from history in a few windows (${store.historyReads} git processes)`)
  const streamed = Buffer.concat(ledger.recordBytes(ledger.select())).toString()
  t.equal(streamed.split('\n').length - 1, 600, 'a streamed pass over the same ledger reads them from history too')
  t.notMatch(streamed, /NOTE/)
  t.equal(warnings.length, 1, 'still one warning')
})

t.test('a distrusted lane whose history window holds an index line edited to name the wrong commit: the record asked for still reads', async t => {
  const {repo, records} = await cached(t)
  // lane a's index: the second line names the first record's commit (which has no file at its path), its CRC made to match
  editIndex(repo, lines => setColumn(lines, 1, 0, lines[0]!.split('\t')[0]!))
  // and the first record's bytes edited: reading it distrusts the lane
  const dat = file(repo, '.note.dat')
  fs.writeFileSync(dat, fs.readFileSync(dat, 'utf8').replace('"text":"note 1"', '"text":"NOTE 1"'))
  const warnings: string[] = []
  const s = await GitRecordStore.open(repo, {onWarning: w => warnings.push(w)})
  t.teardown(() => s.close())
  const ledger = await s.ledger()
  const text = (id: string) => (ledger.load(id) as unknown as {body: {text: string}}).body.text
  const [first, second, third] = records.filter(r => r.body.text.startsWith('note ')).slice(0, 3) as typeof records
  t.equal(text(first!.id), 'note 1', 'the edited record, from history (its window held the wrong line: read alone)')
  t.equal(warnings.length, 1)
  t.equal(text(third!.id), 'note 3', 'a later one')
  t.equal(text(second!.id), 'note 2', 'the one whose line names the wrong commit: left out of the window, its bytes check out in the cache')
  t.equal(warnings.length, 1)
})

t.test("an index line's commit edited, its CRC made to match: inspect shows the commit history has, with a warning, and the lane is rebuilt", async t => {
  const {repo, records} = await cached(t)
  const second = records.filter(r => r.body.text === 'note 2')[0]!
  const truth = (await expJson<{commit: string}>(['inspect', second.id], {cwd: repo})).commit
  const s = await GitRecordStore.open(repo)
  const entries = (await s.ledger()).entries
  await s.close()
  /** lane a's index as it is now, with the line of `second` naming `commit`, its CRC made to match */
  const edit = (commit: string) =>
    editIndex(repo, lines => {
      const at = lines.findIndex(l => l.includes(second.id))
      t.equal(lines[at]!.split('\t')[0], truth, 'the first column of an index line is its commit')
      setColumn(lines, at, 0, commit)
    })
  const cases: [string, string, RegExp][] = [
    ['a commit on the lane that names another record', entries.find(e => e.lane === 'a' && e.id !== second.id)!.commit, /which names note\/nt-[0-9a-f]{24} by its Exp-Record trailer/],
    ["another lane's commit", entries.find(e => e.lane === 'b')!.commit, /which names note\/nt-[0-9a-f]{24} by its Exp-Record trailer/],
    ['no object of this repository', '0'.repeat(40), /which is not in this repository/],
    ['not a commit id', 'x'.repeat(40), /which is not a commit id/],
  ]
  for (const [what, commit, why] of cases) {
    edit(commit)
    const r = await exp(['inspect', second.id, '--json'], {cwd: repo})
    t.equal(r.code, 0, `${what}: exit 0`)
    t.equal(JSON.parse(r.stdout).commit, truth, `${what}: the commit that holds the record, not the one the cache names`)
    t.match(r.stderr, new RegExp(`warning: the cache of refs/research/lanes/a names commit ${commit} for record ${second.id}, ${why.source}`), what)
    t.equal(r.stderr.split('\n').filter(Boolean).length, 1, `${what}: one warning`)
    const again = await exp(['inspect', second.id], {cwd: repo})
    t.equal(again.stderr, '', `${what}: the lane was rebuilt, the next read is clean`)
    t.match(again.stdout, `commit ${truth} on refs/research/lanes/a`)
  }
})

t.test('holdingCommit with history that has no commit naming the record: an error naming the lane, not a wrong commit', async t => {
  const {repo, records} = await cached(t)
  const s = await GitRecordStore.open(repo, {onWarning: () => undefined})
  t.teardown(() => s.close())
  const e = (await s.ledger()).entries.find(x => x.id === records[0]!.id)!
  const c = await s.holdingCommit(e)
  t.equal(c, e.commit, 'a commit that checks out is given as it is')
  await t.rejects(s.holdingCommit({...e, id: 'nt-000000000000000000000000'}), /no commit of refs\/research\/lanes\/a names record note\/nt-0{24}/)
})

t.test("exp's files under .git/exp replaced by a FIFO, a link to /dev/zero or a folder: every read still answers from history, none blocks", {skip: process.platform === 'win32' ? 'no FIFOs' : false}, async t => {
  const {execFileSync} = await import('node:child_process')
  const fifo = (f: string) => (fs.rmSync(f, {recursive: true, force: true}), execFileSync('mkfifo', [f]))
  const cases: [string, (repo: string) => void][] = [
    ['the index a FIFO', repo => fifo(file(repo, '.idx'))],
    ['a data file a FIFO', repo => fifo(file(repo, '.note.dat'))],
    ['state.json a FIFO', repo => fifo(path.join(repo, CACHE, 'state.json'))],
    ['state.json a link to /dev/zero', repo => (fs.rmSync(path.join(repo, CACHE, 'state.json')), fs.symlinkSync('/dev/zero', path.join(repo, CACHE, 'state.json')))],
    ['the write lock a FIFO', repo => fifo(path.join(repo, CACHE, 'write.lock'))],
    ['the write lock a folder', repo => fs.mkdirSync(path.join(repo, CACHE, 'write.lock'))],
    ['the seen tips a FIFO', repo => fifo(path.join(repo, '.git', 'exp', 'tips.json'))],
    ['state.json a folder', repo => (fs.rmSync(path.join(repo, CACHE, 'state.json')), fs.mkdirSync(path.join(repo, CACHE, 'state.json', 'x'), {recursive: true}))],
    ['the seen tips a folder', repo => (fs.rmSync(path.join(repo, '.git', 'exp', 'tips.json')), fs.mkdirSync(path.join(repo, '.git', 'exp', 'tips.json', 'x'), {recursive: true}))],
  ]
  for (const [what, edit] of cases) {
    const {repo, records} = await cached(t)
    edit(repo)
    const l = await exp(['ledger', '--json'], {cwd: repo, timeoutMs: 30_000})
    t.equal(l.code, 0, `${what}: exit 0 ${l.stderr}`)
    t.notMatch(l.stderr, /killed after/, `${what}: the read ended`)
    t.same(JSON.parse(l.stdout || 'null'), records, `${what}: every record, as it is in history`)
    // and the next read finds a cache it can use again (the lock and the files replaced)
    const again = await exp(['ledger', '--json'], {cwd: repo, timeoutMs: 30_000})
    t.same(JSON.parse(again.stdout || 'null'), records, `${what}: a second read too`)
    t.same(fs.readdirSync(path.join(repo, CACHE)).filter(f => f.endsWith('.tmp')), [], `${what}: no temporary file left`)
  }
})

t.test("a FIFO or a link planted where the cache will write next (a kind the lane has not cached yet, the index): the read that writes there neither blocks nor writes through it", {skip: process.platform === 'win32' ? 'no FIFOs' : false}, async t => {
  const {execFileSync} = await import('node:child_process')
  // the data file of a kind lane a has no records of yet, in the lane's cache generation
  const next = (repo: string, suffix: string) => file(repo, '.idx').replace(/\.idx$/, suffix)
  const outside = (repo: string) => path.join(path.dirname(repo), `${path.basename(repo)}-outside`)
  const replaced = (f: string, put: (f: string) => void) => (fs.rmSync(f), put(f))
  const cases: [string, (repo: string) => void][] = [
    ['a FIFO at the data file of a new kind', repo => execFileSync('mkfifo', [next(repo, '.trace.dat')])],
    ['a link to a file outside at the data file of a new kind', repo => (fs.writeFileSync(outside(repo), 'keep\n'), fs.symlinkSync(outside(repo), next(repo, '.trace.dat')))],
    ['a FIFO at the index', repo => replaced(file(repo, '.idx'), f => execFileSync('mkfifo', [f]))],
    ['a link to a file outside at the index', repo => replaced(file(repo, '.idx'), f => (fs.writeFileSync(outside(repo), 'keep\n'), fs.symlinkSync(outside(repo), f)))],
    ['a FIFO at the data file of a kind it has', repo => replaced(file(repo, '.note.dat'), f => execFileSync('mkfifo', [f]))],
    ['a link to a file outside at the data file of a kind it has', repo => replaced(file(repo, '.note.dat'), f => (fs.writeFileSync(outside(repo), 'keep\n'), fs.symlinkSync(outside(repo), f)))],
    // (as large as the file it replaces, or larger: the cache's own checks of its files pass, and the append is where it is refused)
    ['a link to a large file outside at the data file of a kind it has', repo => replaced(file(repo, '.note.dat'), f => (fs.writeFileSync(outside(repo), 'keep\n'.repeat(100_000)), fs.symlinkSync(outside(repo), f)))],
  ]
  for (const [what, edit] of cases) {
    const {repo} = await cached(t)
    edit(repo)
    const before = fs.existsSync(outside(repo)) ? fs.readFileSync(outside(repo), 'utf8') : undefined
    const s = await GitRecordStore.open(repo)
    await s.appendBatch([sampleDraft('trace', 1), sampleDraft('note', 9)], {lane: 'a'})
    await s.close()
    const l = await exp(['ledger', '--json'], {cwd: repo, timeoutMs: 30_000})
    t.equal(l.code, 0, `${what}: exit 0 ${l.stderr}`)
    t.notMatch(l.stderr, /killed after/, `${what}: the read ended`)
    const got = JSON.parse(l.stdout || '[]') as {kind: string}[]
    t.equal(got.length, 8, `${what}: every record`)
    t.equal(got.filter(r => r.kind === 'trace').length, 1, `${what}: the new kind's record too`)
    const again = await exp(['ledger', '--json'], {cwd: repo, timeoutMs: 30_000})
    t.same(JSON.parse(again.stdout || 'null'), got, `${what}: a second read gives the same`)
    if (before !== undefined) t.ok(fs.readFileSync(outside(repo), 'utf8') === before, `${what}: nothing written outside .git/exp`)
    if (what.includes('large')) t.match(l.stderr, /the cache of refs\/research\/lanes\/a could not be written \(.*note\.dat.*\): the lane is read from history without it/, `${what}: the warning says so`)
  }
})

t.test('the cache folder a link to a folder outside: removed, never written through, and made again', async t => {
  const {repo, records} = await cached(t)
  const outside = `${repo}-outside`
  fs.mkdirSync(outside)
  t.teardown(() => fs.rmSync(outside, {recursive: true, force: true}))
  fs.rmSync(path.join(repo, CACHE), {recursive: true})
  fs.symlinkSync(outside, path.join(repo, CACHE))
  const l = await exp(['ledger', '--json'], {cwd: repo})
  t.equal(l.code, 0, l.stderr)
  t.same(JSON.parse(l.stdout), records)
  t.same(fs.readdirSync(outside), [], 'nothing written outside .git/exp')
  t.ok(fs.lstatSync(path.join(repo, CACHE)).isDirectory(), 'a folder of its own again')
  t.ok(fs.existsSync(path.join(repo, CACHE, 'state.json')), 'and the cache written in it')
})

t.test('.git/exp a file or a link: every read answers, says once that nothing is cached or remembered, and writes nothing through it', async t => {
  const cases: [string, (repo: string, outside: string) => void][] = [
    ['a file', repo => fs.writeFileSync(path.join(repo, '.git', 'exp'), 'not a folder\n')],
    ['a link to a folder outside', (repo, outside) => (fs.mkdirSync(outside), fs.symlinkSync(outside, path.join(repo, '.git', 'exp')))],
  ]
  for (const [what, put] of cases) {
    const {repo, records} = await cached(t)
    const outside = `${repo}-outside`
    t.teardown(() => fs.rmSync(outside, {recursive: true, force: true}))
    fs.rmSync(path.join(repo, '.git', 'exp'), {recursive: true})
    put(repo, outside)
    const l = await exp(['ledger', '--json'], {cwd: repo})
    t.equal(l.code, 0, `${what}: exit 0 ${l.stderr}`)
    t.same(JSON.parse(l.stdout), records, `${what}: every record, from history`)
    const warned = l.stderr.match(/\.git\/exp is (a file|a symbolic link), not a folder: reads are not cached and the lane tips seen are not remembered \(hint: remove it/g) ?? []
    t.equal(warned.length, 1, `${what}: said once: ${l.stderr}`)
    if (fs.existsSync(outside)) t.same(fs.readdirSync(outside), [], `${what}: nothing written through the link`)
    // removed as the hint says: the next read caches again, without a word
    fs.rmSync(path.join(repo, '.git', 'exp'), {recursive: true, force: true})
    const again = await exp(['ledger', '--json'], {cwd: repo})
    t.same(JSON.parse(again.stdout), records)
    t.equal(again.stderr, '', `${what}: nothing to say once it is gone`)
    t.ok(fs.existsSync(path.join(repo, CACHE, 'state.json')), `${what}: cached again`)
  }
})
