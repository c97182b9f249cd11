import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {makeRepo, git, gitIn} from '../helpers/repo.js'
import {exp, expJson} from '../helpers/cli.js'
import {expBatch} from '../helpers/cli-batch.js'
import {hubAndClones} from '../helpers/hub-fixture.js'

interface SyncJson {
  fetched: {ref: string; restored?: boolean}[]
  pushed: {ref: string}[]
  rejected: {ref: string; direction: string; kind: string; reason: string}[]
}

/** Every test with a hub runs against a path remote (the git binary) and a smart-HTTP one on 127.0.0.1 (isomorphic-git). */
const TRANSPORTS = ['path', 'http'] as const
type Transport = (typeof TRANSPORTS)[number]
const transportName = (x: Transport) => (x === 'http' ? 'isomorphic-git' : 'git')

const append = async (cwd: string, lane: string, text: string) => {
  const r = await exp(['append', 'note', '-', '--lane', lane], {cwd, input: `text: ${text}`})
  if (r.code !== 0) throw new Error(r.stderr)
  return r.stdout.trim()
}
/** Several appends, one after the other, in one process (cli-batch.ts): the same records and lane commits as one `exp append` each. */
const appendAll = async (cwd: string, notes: readonly (readonly [lane: string, text: string])[]) => {
  const rs = await expBatch(notes.map(([lane, text]) => ({args: ['append', 'note', '-', '--lane', lane], cwd, input: `text: ${text}`})))
  for (const r of rs) if (r.code !== 0) throw new Error(r.stderr)
  return rs.map(r => r.stdout.trim())
}
const syncJson = async (cwd: string): Promise<{code: number; json: SyncJson; stderr: string}> => {
  const r = await exp(['sync', '--json'], {cwd})
  const out = JSON.parse(r.stdout) as SyncJson | {error: {data: SyncJson}}
  return {code: r.code, json: 'error' in out ? out.error.data : out, stderr: r.stderr}
}

for (const transport of TRANSPORTS) t.test(`exp init in both clones, then sync again and again: it keeps working, and counts what moved (${transport})`, async t => {
  const {c1, c2} = await hubAndClones(t, transport)
  await append(c1, 'c1', 'one')
  t.equal((await syncJson(c1)).code, 0)
  await append(c1, 'c1', 'two')
  const second = await syncJson(c1)
  t.equal(second.code, 0, `the second sync works too: ${second.stderr}`)
  t.same(second.json.pushed.map(p => p.ref), ['refs/research/lanes/c1'])
  await appendAll(c2, [['c2', 'three'], ['c2b', 'four']])
  const fromC2 = await syncJson(c2)
  t.equal(fromC2.code, 0, fromC2.stderr)
  t.same(fromC2.json.fetched.map(f => f.ref), ['refs/research/lanes/c1'], 'what moved is counted')
  t.same(fromC2.json.pushed.map(p => p.ref).sort(), ['refs/research/lanes/c2', 'refs/research/lanes/c2b'])
  const text = await exp(['sync'], {cwd: c1})
  t.equal(text.code, 0, text.stderr)
  t.match(text.stdout, `synced with origin (${transportName(transport)}): 2 fetched, 0 pushed, 0 not synced`)
  // plain git fetch with the refspecs exp init configured works too
  await git(c1, 'fetch', '-q', 'origin')
  t.equal((await expJson<unknown[]>(['ledger'], {cwd: c1})).length, 4)
  t.equal((await expJson<unknown[]>(['ledger'], {cwd: c2})).length, 4)
})

for (const transport of TRANSPORTS) t.test(`a diverged lane is reported as diverged and every other lane still syncs (${transport})`, async t => {
  const {c1, c2} = await hubAndClones(t, transport)
  await append(c1, 'shared', 'from c1')
  t.equal((await syncJson(c1)).code, 0)
  await appendAll(c2, [['shared', 'from c2 (same lane name, other history)'], ['mine', 'c2 only']])
  await append(c1, 'c1only', 'c1 only')
  t.equal((await syncJson(c1)).code, 0)
  const r = await syncJson(c2)
  t.equal(r.code, 4)
  t.same(r.json.rejected.map(x => [x.ref, x.kind]), [['refs/research/lanes/shared', 'diverged']])
  t.same(r.json.fetched.map(f => f.ref), ['refs/research/lanes/c1only'], 'the other lanes were fetched')
  t.same(r.json.pushed.map(p => p.ref), ['refs/research/lanes/mine'], 'and pushed')
  t.match(r.stderr, /1 ref\(s\) diverged and were not overwritten: refs\/research\/lanes\/shared/)
})

for (const transport of TRANSPORTS) t.test(`a push the remote refuses is reported as refused, with the remote reason; the others go through (${transport})`, async t => {
  const {hub, c1} = await hubAndClones(t, transport)
  const hook = path.join(hub, 'hooks', 'update')
  // (its words with a terminal escape in them: shown as words only)
  fs.writeFileSync(hook, '#!/bin/sh\ncase "$1" in refs/research/lanes/blocked) printf "\\033[31mlane blocked by policy\\n" >&2; exit 1;; esac\nexit 0\n', {mode: 0o755})
  await appendAll(c1, [['blocked', 'x'], ['open', 'y']])
  const r = await syncJson(c1)
  t.equal(r.code, 4)
  t.same(r.json.rejected.map(x => [x.ref, x.kind]), [['refs/research/lanes/blocked', 'refused']])
  t.match(r.json.rejected[0]!.reason, /the remote refused it: hook declined/)
  // (found by an attack sweep: the hook's own words were dropped; git's transport carries them)
  if (transport === 'path') t.match(r.json.rejected[0]!.reason, /hook declined \(lane blocked by policy\)$/)
  t.notOk(r.json.rejected[0]!.reason.includes('\x1b'), 'no terminal escape')
  t.same(r.json.pushed.map(p => p.ref), ['refs/research/lanes/open'])
  t.match(r.stderr, /error: the remote refused 1 ref\(s\)/)
  t.notMatch(r.stderr, /diverged/)
})

for (const transport of TRANSPORTS) t.test(`an old commit with a NUL in its message is refused by a receive.fsckObjects remote, and said so (${transport})`, async t => {
  const {c1} = await hubAndClones(t, transport)
  await append(c1, 'old', 'fine')
  const tip = (await git(c1, 'rev-parse', 'refs/research/lanes/old')).trim()
  const tree = (await git(c1, 'rev-parse', 'refs/research/lanes/old^{tree}')).trim()
  const body = `tree ${tree}\nparent ${tip}\nauthor a <a@x> 1700000000 +0000\ncommitter a <a@x> 1700000000 +0000\n\nnote: a\u0000b\n\nExp-Record: note/nt-000000000000000000000000\n`
  const bad = await gitIn(c1, ['hash-object', '-t', 'commit', '-w', '--literally', '--stdin'], body)
  await git(c1, 'update-ref', 'refs/research/lanes/old', bad)
  const r = await syncJson(c1)
  t.equal(r.code, 4)
  t.same(r.json.rejected.map(x => [x.ref, x.kind]), [['refs/research/lanes/old', 'refused']])
  t.match(r.json.rejected[0]!.reason, /nul|NUL/i)
})

// Found by a sweep: git's push sends one pack, and a receive.fsckObjects remote refuses all of
// it for one bad object: one lane holding a commit it refuses kept every other lane from being
// pushed, on every sync. (isomorphic-git pushes one ref at a time already.)
for (const transport of TRANSPORTS) t.test(`one lane the remote refuses does not keep the others from being pushed (${transport})`, async t => {
  const {hub, c1} = await hubAndClones(t, transport)
  await append(c1, 'old', 'fine')
  const tip = (await git(c1, 'rev-parse', 'refs/research/lanes/old')).trim()
  const tree = (await git(c1, 'rev-parse', 'refs/research/lanes/old^{tree}')).trim()
  const body = `tree ${tree}\nparent ${tip}\nauthor a <a@x> notatime +0000\ncommitter a <a@x> 1700000000 +0000\n\nnote: a\n`
  const bad = await gitIn(c1, ['hash-object', '-t', 'commit', '-w', '--literally', '--stdin'], body)
  await git(c1, 'update-ref', 'refs/research/lanes/old', bad)
  await appendAll(c1, ['honest', 'also'].map(lane => [lane, `from ${lane}`] as const))
  const r = await syncJson(c1)
  t.equal(r.code, 4)
  t.same(r.json.rejected.map(x => [x.ref, x.kind]), [['refs/research/lanes/old', 'refused']])
  t.match(r.json.rejected[0]!.reason, /badDate|bad date/i, "the remote's reason, naming the bad object")
  t.same(r.json.pushed.map(x => x.ref).sort(), ['refs/research/lanes/also', 'refs/research/lanes/honest'])
  t.equal((await git(hub, 'for-each-ref', '--format=%(refname)', 'refs/research')).trim().split('\n').sort().join(' '), 'refs/research/lanes/also refs/research/lanes/honest')
})

t.test('exp sync of a path that does not exist says so plainly', async t => {
  const repo = await makeRepo(t)
  const r = await exp(['sync', '/nonexistent/hub.git'], {cwd: repo})
  t.equal(r.code, 3)
  t.match(r.stderr, /^error: unknown remote repository: \/nonexistent\/hub\.git \(no such folder\)\nhint: /)
})

for (const transport of TRANSPORTS) t.test(`a lane rewound in one clone is restored by exp sync from a remote that has it (${transport})`, async t => {
  const {c1} = await hubAndClones(t, transport)
  await appendAll(c1, Array.from({length: 12}, (_, i) => ['p', `record ${i}`] as const))
  t.equal((await syncJson(c1)).code, 0)
  t.equal((await expJson<unknown[]>(['ledger'], {cwd: c1})).length, 12)
  await git(c1, 'update-ref', 'refs/research/lanes/p', 'refs/research/lanes/p~10')
  t.match((await exp(['ledger'], {cwd: c1})).stderr, /refs\/research\/lanes\/p moved from/)
  const r = await exp(['sync'], {cwd: c1})
  t.equal(r.code, 0, r.stderr)
  t.match(r.stdout, /fetched refs\/research\/lanes\/p [0-9a-f]{8}\.\.[0-9a-f]{8} \(restored/)
  const after = await exp(['ledger', '--json'], {cwd: c1})
  t.equal((JSON.parse(after.stdout) as unknown[]).length, 12)
  t.notMatch(after.stderr, /moved from/, 'the warning is gone')
})

for (const transport of TRANSPORTS) t.test(`a remote lane ref at a blob or a tree is not taken; the others sync; the refusal is this clone's (${transport})`, async t => {
  const {hub, c1} = await hubAndClones(t, transport)
  const blob = await gitIn(hub, ['hash-object', '-w', '--stdin'], 'not a commit\n')
  const tree = await gitIn(hub, ['mktree'], '')
  await git(hub, 'update-ref', 'refs/research/lanes/blob', blob)
  await git(hub, 'update-ref', 'refs/research/lanes/tree', tree)
  await append(c1, 'good', 'x')
  const r = await syncJson(c1)
  t.equal(r.code, 4)
  t.same(r.json.rejected.map(x => [x.ref, x.direction, x.kind]).sort(), [['refs/research/lanes/blob', 'fetch', 'refused'], ['refs/research/lanes/tree', 'fetch', 'refused']])
  t.match(r.json.rejected[0]!.reason, /the remote's ref points at a (blob|tree), not a commit: not taken/)
  t.same(r.json.pushed.map(p => p.ref), ['refs/research/lanes/good'])
  t.match(r.stderr, /error: refused 2 ref\(s\)/)
  t.equal((await git(c1, 'for-each-ref', '--format=%(refname)', 'refs/research/')).trim(), 'refs/research/lanes/good', 'nothing but the good lane here')
  t.equal((await exp(['ledger'], {cwd: c1})).code, 0, 'every read still reads')
})

t.test('exp sync PATH takes a path relative to where it is run, even from a subfolder; a remote configured with a relative path works', async t => {
  const {hub, c1} = await hubAndClones(t, 'path')
  await append(c1, 'rel', 'x')
  const sub = path.join(c1, 'sub')
  fs.mkdirSync(sub)
  const rel = path.relative(sub, hub)
  t.match(rel, /^\.\.\//)
  const r = await exp(['sync', rel, '--json'], {cwd: sub})
  t.equal(r.code, 0, r.stderr)
  t.same((JSON.parse(r.stdout) as SyncJson).pushed.map(p => p.ref), ['refs/research/lanes/rel'])
  await git(c1, 'remote', 'add', 'relhub', path.relative(c1, hub))
  await append(c1, 'rel', 'y')
  const c = await exp(['sync', 'relhub', '--json'], {cwd: c1})
  t.equal(c.code, 0, c.stderr)
  t.same((JSON.parse(c.stdout) as SyncJson).pushed.map(p => p.ref), ['refs/research/lanes/rel'])
})

for (const transport of TRANSPORTS) t.test(`refs under refs/research/lanes/ that are no lane names are refused one by one; the rest still syncs (${transport})`, async t => {
  const {hub, c1, c2} = await hubAndClones(t, transport)
  await append(c2, 'other', 'theirs')
  t.equal((await syncJson(c2)).code, 0)
  // someone who may push lanes writes names no lane has, one of them under lane x, which
  // c1 has and has not pushed yet
  await appendAll(c1, [['x', 'mine'], ['y', 'mine too']])
  const tip = (await gitIn(hub, ['rev-parse', 'refs/research/lanes/other'], '')).trim()
  const bad = ['x/y', '-x', '@', 'L'.repeat(150)]
  for (const b of bad) await gitIn(hub, ['update-ref', `refs/research/lanes/${b}`, tip], '')
  const r = await syncJson(c1)
  t.not(r.code, 0, 'the refusals are reported')
  const fetchRefused = r.json.rejected.filter(x => x.direction === 'fetch')
  t.same(fetchRefused.map(x => x.ref).sort(), bad.map(b => `refs/research/lanes/${b}`).sort(), `each bad name refused: ${r.stderr}`)
  t.ok(fetchRefused.every(x => x.kind === 'refused' && /is not a lane name/.test(x.reason)))
  t.ok(r.json.fetched.some(x => x.ref === 'refs/research/lanes/other'), 'the other lane is fetched')
  t.ok(r.json.pushed.some(x => x.ref === 'refs/research/lanes/y'), 'and this clone\'s lanes pushed (x, which the remote has a folder for, is refused by it)')
  const refs = await gitIn(c1, ['for-each-ref', '--format=%(refname)', 'refs/research/'], '')
  t.notMatch(refs, /lanes\/x\/|lanes\/-x|lanes\/@|LLLL/, 'none of them is taken')
  t.match(refs, /refs\/research\/lanes\/x\n/, 'and lane x is as it was')
  const ledger = await exp(['ledger'], {cwd: c1})
  t.equal(ledger.code, 0, `every read still works: ${ledger.stderr}`)
})

t.test('git lock files a killed sync left in exp\'s tracking refs are removed by the next sync and by exp gc; a fresh one is named in the hint', async t => {
  const {c1, c2} = await hubAndClones(t, 'path')
  await append(c2, 'a', 'theirs')
  t.equal((await syncJson(c2)).code, 0)
  await append(c1, 'b', 'mine')
  t.equal((await syncJson(c1)).code, 0)
  await append(c2, 'a', 'theirs again')
  t.equal((await syncJson(c2)).code, 0)
  // the lock a fetch killed while it moved c1's copy of lane a left behind
  const copy = (await gitIn(c1, ['for-each-ref', '--format=%(refname)', 'refs/exp/remotes/'], '')).split('\n').find(r => r.endsWith('/research/lanes/a'))!
  t.ok(copy, 'c1 keeps a copy of the remote\'s lane a')
  const lock = path.join(c1, '.git', `${copy}.lock`)
  fs.writeFileSync(lock, '')
  const fresh = await exp(['sync'], {cwd: c1})
  t.not(fresh.code, 0, 'a lock held a moment ago may be a sync running now: not taken over')
  t.match(fresh.stderr, /hint: git holds a lock of this clone's copy of the remote's refs: another exp sync here is running, or one was killed/)
  const old = new Date(Date.now() - 5 * 60 * 1000)
  fs.utimesSync(lock, old, old)
  const again = await syncJson(c1)
  t.equal(again.code, 0, again.stderr)
  t.ok(again.json.fetched.some(x => x.ref === 'refs/research/lanes/a'), 'and the lane is fetched')
  t.notOk(fs.existsSync(lock), 'the old lock is gone')
  fs.writeFileSync(lock, '')
  fs.utimesSync(lock, old, old)
  t.equal((await exp(['gc'], {cwd: c1})).code, 0)
  t.notOk(fs.existsSync(lock), 'exp gc removes one too')
})

t.test('a lane the remote moved while sync ran (another sync at the same time) is said to have moved, with a hint to run again; a real divergence then says so', async t => {
  const {hub, c1, c2} = await hubAndClones(t, 'path')
  await append(c1, 'x', 'one')
  t.equal((await syncJson(c1)).code, 0)
  t.equal((await syncJson(c2)).code, 0)
  await append(c2, 'x', 'from c2')
  // c2's commit is in the hub under another name: the hook below moves lane x to it while c1's sync runs
  const theirs = (await gitIn(c2, ['rev-parse', 'refs/research/lanes/x'], '')).trim()
  await gitIn(c2, ['push', '-q', hub, `${theirs}:refs/heads/parked`], '')
  await append(c1, 'x', 'from c1')
  fs.writeFileSync(path.join(c1, '.git', 'hooks', 'pre-push'), `#!/bin/sh\ngit --git-dir=${hub} update-ref refs/research/lanes/x ${theirs}\nexit 0\n`, {mode: 0o755})
  const raced = await exp(['sync', '--json'], {cwd: c1})
  t.equal(raced.code, 4, raced.stderr)
  const err = (JSON.parse(raced.stdout) as {error: {message: string; hint: string; data: SyncJson}}).error
  t.match(err.data.rejected, [{ref: 'refs/research/lanes/x', direction: 'push', kind: 'moved'}])
  t.match(err.message, /1 ref\(s\) moved while sync ran and were left for the next one/)
  t.match(err.hint, /another exp sync \(or an append\) ran at the same time: run exp sync again/)
  fs.rmSync(path.join(c1, '.git', 'hooks', 'pre-push'))
  const next = await syncJson(c1)
  t.equal(next.code, 4)
  t.match(next.json.rejected, [{ref: 'refs/research/lanes/x', kind: 'diverged'}], 'run again, the divergence it was is named')
})
