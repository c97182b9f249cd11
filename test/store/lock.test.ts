import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {spawn} from 'node:child_process'
import {GitRecordStore} from '../../src/store/index.js'
import {RefLock, lockOptions} from '../../src/git/lock.js'
import {makeRepo, git} from '../helpers/repo.js'
import {sampleDraft} from '../helpers/records.js'

t.test('a lock held by a live writer makes others wait, then fail naming the process', async t => {
  const repo = await makeRepo(t)
  const common = path.join(repo, '.git')
  // a live process that is not us: its pid goes into the lock
  const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'])
  t.teardown(() => holder.kill('SIGKILL'))
  const lock = path.join(common, 'refs/research/lanes/busy.lock')
  fs.mkdirSync(path.dirname(lock), {recursive: true})
  fs.writeFileSync(lock, `exp pid=${holder.pid} host=${(await import('node:os')).hostname()} at=now\n`)
  const s = await GitRecordStore.open(repo)
  const t0 = Date.now()
  await t.rejects(s.append(sampleDraft('note'), {lane: 'busy', lockTimeoutMs: 400}), {code: 'E_LOCKED', message: new RegExp(`locked by process ${holder.pid}`)})
  t.ok(Date.now() - t0 >= 400, 'it waited for the timeout')
  t.equal((await s.ledger()).size, 0, 'nothing written')
  holder.kill('SIGKILL')
  await new Promise(r => holder.once('close', r))
  const r = await s.append(sampleDraft('note'), {lane: 'busy', lockTimeoutMs: 2000})
  t.equal(r.status, 'created', 'the dead holder\'s lock is broken')
  await s.close()
})

t.test('native git and exp interlock through the same lock file', async t => {
  const repo = await makeRepo(t)
  const common = path.join(repo, '.git')
  const lock = await RefLock.acquire(common, 'refs/research/lanes/x')
  await t.rejects(git(repo, 'update-ref', 'refs/research/lanes/x', 'HEAD'), /lock/, 'git cannot move a ref exp holds')
  await lock.release()
  await git(repo, 'update-ref', 'refs/research/lanes/x', 'HEAD')
  t.pass('and can once exp let go')
})

t.test('a ref moved by someone who ignored the lock is a conflict, not a lost update', async t => {
  const repo = await makeRepo(t)
  const common = path.join(repo, '.git')
  const lock = await RefLock.acquire(common, 'refs/research/lanes/y')
  fs.writeFileSync(path.join(common, 'refs/research/lanes/y'), `${(await git(repo, 'rev-parse', 'HEAD')).trim()}\n`)
  await t.rejects(lock.commit('0'.repeat(40)), {code: 'E_CONFLICT'})
  t.notOk(fs.existsSync(path.join(common, 'refs/research/lanes/y.lock')), 'the lock is released')
})

// Found by a sweep: an option passed as undefined replaced its default, and every `exp append`
// (which passes its lockTimeoutMs through, unset) waited forever for a live writer's lock.
t.test('an option left undefined keeps its default: a lock held by a live writer is never waited for forever', async t => {
  t.same(lockOptions({timeoutMs: undefined, staleMs: undefined}), {timeoutMs: 30_000, staleMs: 120_000})
  t.same(lockOptions({timeoutMs: 5}), {timeoutMs: 5, staleMs: 120_000})
  const repo = await makeRepo(t)
  const common = path.join(repo, '.git')
  const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'])
  t.teardown(() => holder.kill('SIGKILL'))
  const lock = path.join(common, 'refs/research/lanes/held.lock')
  fs.mkdirSync(path.dirname(lock), {recursive: true})
  fs.writeFileSync(lock, `exp pid=${holder.pid} host=${(await import('node:os')).hostname()} at=now\n`)
  // (staleMs undefined: the default, not "never stale" nor "always")
  await t.rejects(RefLock.acquire(common, 'refs/research/lanes/held', {timeoutMs: 300, staleMs: undefined}), {code: 'E_LOCKED'})
})

// Found by the crash soak: a writer SIGKILLed while breaking a dead writer's lock (after it
// removed that lock, before it removed its own `.lock~break.lock`) left the breaker's lock for
// good: the lane's lock was gone, so no waiter ever met the breaker's lock again.
t.test("a dead breaker's lock is removed by the next writer of the folder; a live one's is left", async t => {
  const repo = await makeRepo(t)
  const common = path.join(repo, '.git')
  const dir = path.join(common, 'refs/research/lanes')
  fs.mkdirSync(dir, {recursive: true})
  const host = (await import('node:os')).hostname()
  const gone = spawn(process.execPath, ['-e', '0'])
  await new Promise(r => gone.once('close', r))
  const live = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'])
  t.teardown(() => live.kill('SIGKILL'))
  const dead = path.join(dir, 'crashy.lock~break.lock')
  const held = path.join(dir, 'busy.lock~break.lock')
  const elsewhere = path.join(dir, 'remote.lock~break.lock')
  fs.writeFileSync(dead, `exp pid=${gone.pid} host=${host} at=now\n`)
  fs.writeFileSync(held, `exp pid=${live.pid} host=${host} at=now\n`)
  fs.writeFileSync(elsewhere, `exp pid=${gone.pid} host=not-${host} at=now\n`)
  const s = await GitRecordStore.open(repo)
  t.equal((await s.append(sampleDraft('note'), {lane: 'other'})).status, 'created')
  await s.close()
  t.notOk(fs.existsSync(dead), 'the lock of a breaker that died is gone')
  t.ok(fs.existsSync(held), 'a live breaker keeps its lock')
  t.ok(fs.existsSync(elsewhere), 'a breaker of another host is not judged by its pid')
})
