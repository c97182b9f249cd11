import t from 'tap'
import {GitRecordStore} from '../../src/store/index.js'
import {prepare, recordPath, seal} from '../../src/records/index.js'
import {makeRepo, git, handCommit} from '../helpers/repo.js'
import {sampleDraft} from '../helpers/records.js'
import {exp} from '../helpers/cli.js'

// A record or artifact is a regular file. A lane owner (or a remote `exp sync` takes from)
// can commit a submodule or a symbolic link at a record's path: the readers read a
// submodule's entry as the object it names (a commit of the lane: "not valid JSON (tree …"),
// a missing one as "unreadable object", a link as its target's text; and the plain read of a
// large lane passed over a submodule the commit of a record added beside it.

/** A sealed note's id and path at `lamport` on `lane` (its bytes are not what gets committed). */
function noteAt(lane: string, lamport: number, text: string): {id: string; file: string; message: string} {
  const r = seal(prepare({kind: 'note', body: {text}, cites: []}), {lane, lamport, createdAt: '2026-01-01T00:00:00.000Z'})
  return {id: r.id, file: recordPath('note', r.id), message: `note: ${text}\n\nExp-Record: note/${r.id}\nExp-Schema: note@1\nExp-Lamport: ${lamport}\n`}
}

async function laneOf(t: Parameters<typeof makeRepo>[0], n: number): Promise<{repo: string; ids: string[]}> {
  const repo = await makeRepo(t)
  const s = await GitRecordStore.open(repo)
  const ids = (await s.appendBatch(Array.from({length: n}, (_, i) => sampleDraft('note', i + 1)), {lane: 'l'})).map(r => r.id)
  await s.close()
  return {repo, ids}
}

for (const size of [1, 20]) {
  t.test(`a submodule and a symbolic link at record paths are named as such (a lane of ${size} records before them)`, async t => {
    const {repo, ids} = await laneOf(t, size)
    const first = (await git(repo, 'rev-list', '--max-parents=0', 'refs/research/lanes/l')).trim()
    const sub = noteAt('l', size + 1, 'a submodule')
    await handCommit(repo, 'l', sub.file, first, sub.message, {mode: '160000'})
    const link = noteAt('l', size + 2, 'a link')
    await handCommit(repo, 'l', link.file, '../../../../.git/config', link.message, {mode: '120000'})
    const l = await exp(['ledger', '--json'], {cwd: repo})
    t.equal(l.code, 0, l.stderr)
    t.same((JSON.parse(l.stdout) as {id: string}[]).map(r => r.id), ids, 'the records of the lane are read, the two entries are not')
    t.match(l.stderr, new RegExp(`${sub.file}: ${sub.file} is a submodule \\(a gitlink to commit ${first}\\), not a record file`))
    t.match(l.stderr, new RegExp(`${link.file}: ${link.file} is a symbolic link, not a record file`))
    t.notMatch(l.stderr, /not valid JSON|unreadable object/)
    const f = await exp(['fsck'], {cwd: repo})
    t.equal(f.code, 5)
    t.match(f.stdout, /is a submodule \(a gitlink to commit/)
    t.match(f.stdout, /is a symbolic link, not a record file/)
    // a read from the cache says the same
    const again = await exp(['ledger'], {cwd: repo})
    t.match(again.stderr, /is a symbolic link, not a record file/)
  })
}

t.test('a submodule a record commit adds beside its record is named, however large the lane', async t => {
  const {repo, ids} = await laneOf(t, 40)
  const first = (await git(repo, 'rev-list', '--max-parents=0', 'refs/research/lanes/l')).trim()
  const s = await GitRecordStore.open(repo)
  const [extra] = await s.appendBatch([sampleDraft('note', 99)], {lane: 'l'})
  await s.close()
  // the last commit again, with a submodule beside its record
  const tip = (await git(repo, 'rev-parse', 'refs/research/lanes/l')).trim()
  const message = await git(repo, 'log', '-1', '--format=%B', tip)
  const bytes = await git(repo, 'show', `${tip}:${recordPath('note', extra!.id)}`)
  await git(repo, 'update-ref', 'refs/research/lanes/l', `${tip}^`)
  await handCommit(repo, 'l', recordPath('note', extra!.id), bytes, message, {also: {file: 'research/notes/00/module', mode: '160000', oid: first}})
  const l = await exp(['ledger', '--json'], {cwd: repo})
  t.equal(l.code, 0, l.stderr)
  t.same((JSON.parse(l.stdout) as {id: string}[]).map(r => r.id), ids, 'the record of that commit is not taken')
  t.match(l.stderr, /record commit changes 2 files \(expected exactly one added record\)/)
})
