import t from 'tap'
import type {Test} from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {ByteSplitter, PIECE_HEAD} from '../../src/store/git/split.js'
import {laneCommitsNative} from '../../src/store/git/log.js'
import {makeRepo, git, tempDir} from '../helpers/repo.js'
import {exp} from '../helpers/cli.js'

/**
 * A commit message compresses about 1000x in a push: a lane owner can put a commit of
 * hundreds of MB on a lane for the price of a few hundred KB. Before, every read of the
 * ledger joined git log's output of it read by read (quadratic: a 300 MB message took
 * minutes and over 1 GB) and read the tip commit whole. Now no commit or tree over 16 MiB is
 * held: the commit is named, and the rest of the lane and the other lanes are read.
 */

t.test('a piece over the limit is passed over, named by its head and size; the pieces around it are whole', async t => {
  const max = 1 << 20
  const got: string[] = []
  const big: {head: string; size: number}[] = []
  const s = new ByteSplitter(1, max, (head, size) => big.push({head: head.toString('latin1', 0, 8), size}))
  const stream = Buffer.concat([Buffer.from('\x01first\x01'), Buffer.from('HEADHEAD'), Buffer.alloc(5 * max, 'y'), Buffer.from('\x01second\x01'), Buffer.alloc(max - 10, 'z'), Buffer.from('\x01'), Buffer.alloc(3 * max, 'w'), Buffer.from('\x01last')])
  const take = (b: Buffer, from: number, to: number) => got.push(to - from > 20 ? `${b.toString('latin1', from, from + 1)}*${to - from}` : b.toString('latin1', from, to))
  // fed as a pipe gives it: 64 KiB reads, and once a read that holds several pieces whole
  for (let i = 0; i < stream.length; i += 65536) s.feed(stream.subarray(i, i + 65536), take)
  s.end(take)
  t.same(got, ['', 'first', 'second', `z*${max - 10}`, 'last'])
  t.same(big, [
    {head: 'HEADHEAD', size: 5 * max + 8},
    {head: 'wwwwwwww', size: 3 * max},
  ])
  // within one read, too
  const one: {size: number; head: number}[] = []
  const s2 = new ByteSplitter(0, 100, (head, size) => one.push({size, head: head.length}))
  const pieces: string[] = []
  s2.feed(Buffer.concat([Buffer.from('a\0'), Buffer.alloc(PIECE_HEAD * 2, 'b'), Buffer.from('\0c\0')]), (b, f, e) => pieces.push(b.toString('latin1', f, e)))
  t.same(pieces, ['a', 'c'])
  t.same(one, [{size: PIECE_HEAD * 2, head: PIECE_HEAD}])
})

/** A lane `a`: one record, then a commit with a message of `mb` MB, then (if `child`) a small commit on top. */
async function hostileLane(t: Test, mb: number, child: boolean): Promise<{repo: string; big: string}> {
  const repo = await makeRepo(t)
  t.equal((await exp(['append', 'note', '-', '--lane', 'a'], {cwd: repo, input: '{"text":"before"}'})).code, 0)
  t.equal((await exp(['append', 'note', '-', '--lane', 'b'], {cwd: repo, input: '{"text":"other lane"}'})).code, 0)
  const msg = path.join(tempDir(t), 'msg')
  fs.writeFileSync(msg, Buffer.alloc(mb * 1024 * 1024, 'x'))
  const tip = (await git(repo, 'rev-parse', 'refs/research/lanes/a')).trim()
  const tree = (await git(repo, 'rev-parse', `${tip}^{tree}`)).trim()
  const big = (await git(repo, 'commit-tree', '-p', tip, tree, '-F', msg)).trim()
  let top = big
  if (child) top = (await git(repo, 'commit-tree', '-p', big, tree, '-m', 'on top')).trim()
  await git(repo, 'update-ref', 'refs/research/lanes/a', top)
  // packed, as a push delivers it: the message is a few KB on disk
  await git(repo, 'gc', '-q')
  return {repo, big}
}
t.test('a 40 MB commit message inside a lane is named; the lane\'s records and the other lanes are read', async t => {
  const {repo, big} = await hostileLane(t, 40, true)
  const commits = await laneCommitsNative(path.join(repo, '.git'), (await git(repo, 'rev-parse', 'refs/research/lanes/a')).trim())
  const named = commits.find(c => c.oid === big)
  t.ok(named, 'the commit is listed by its id')
  t.match(named?.problem, {code: 'commit-message', message: /is \d+ bytes in git log .* over the 16777216 bytes .* not read/})
  t.equal(named?.message, '', 'and its message is not held')
  const started = Date.now()
  const r = await exp(['ledger', '--json'], {cwd: repo})
  t.ok(Date.now() - started < 60_000, 'the read does not stall')
  const texts = (JSON.parse(r.stdout) as {body: {text: string}}[]).map(x => x.body.text).sort()
  t.same(texts, ['before', 'other lane'], 'every record is read')
  t.match(r.stderr, big.slice(0, 12), 'the commit is named')
  const f = await exp(['fsck', '--json'], {cwd: repo})
  t.not(f.code, 0)
  t.match(f.stdout, big.slice(0, 12), 'fsck names it')
})

t.test('a 40 MB commit at a lane\'s tip makes that lane unreadable, named with its size; nothing is appended to it', async t => {
  const {repo} = await hostileLane(t, 40, false)
  const r = await exp(['ledger', '--json'], {cwd: repo})
  t.equal(r.code, 5, r.stderr)
  t.same((JSON.parse(r.stdout) as {body: {text: string}}[]).map(x => x.body.text), ['other lane'], 'the other lane is read')
  t.match(r.stderr, /refs\/research\/lanes\/a cannot be read: its tip [0-9a-f]{12} is a \d+-byte object, over the 16777216 bytes exp reads of a commit/)
  // the next step is to move the lane back, not to fetch it again (a remote has the same commit)
  const short = (await git(repo, 'rev-parse', 'refs/research/lanes/a')).trim().slice(0, 12)
  t.match(r.stderr, `git update-ref refs/research/lanes/a ${short}^`, 'the hint names the command that moves the lane back')
  t.notMatch(r.stderr, /exp sync/, 'and does not send the user to a re-fetch')
  const f = await exp(['fsck'], {cwd: repo})
  t.equal(f.code, 5)
  t.match(f.stdout + f.stderr, /over the 16777216 bytes exp reads of a commit/)
  const fj = await exp(['fsck', '--json'], {cwd: repo})
  const p = (JSON.parse(fj.stdout) as {error: {data: {problems: {code: string; hint?: string}[]}}}).error.data.problems.find(x => x.code === 'lane-unreadable')
  t.match(p?.hint, `git update-ref refs/research/lanes/a ${short}^`, 'fsck gives the same next step')
  const before = (await git(repo, 'rev-parse', 'refs/research/lanes/a')).trim()
  const a = await exp(['append', 'note', '-', '--lane', 'a'], {cwd: repo, input: '{"text":"after"}'})
  t.not(a.code, 0, 'an append to it is refused')
  t.match(a.stderr, /cannot be read as a commit/)
  t.equal((await git(repo, 'rev-parse', 'refs/research/lanes/a')).trim(), before, 'and the lane did not move')
  // following the hint mends the lane: its records read again and it takes appends
  await git(repo, 'update-ref', 'refs/research/lanes/a', `${short}^`)
  const mended = await exp(['ledger', '--json'], {cwd: repo})
  t.equal(mended.code, 0, mended.stderr)
  t.equal((JSON.parse(mended.stdout) as unknown[]).length, 2, 'both lanes read')
  t.equal((await exp(['append', 'note', '-', '--lane', 'a'], {cwd: repo, input: '{"text":"after"}'})).code, 0)
})
