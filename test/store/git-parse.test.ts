import t from 'tap'
import {execFile} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import path from 'node:path'
import {laneCommitChunksNative} from '../../src/store/git/log.js'
import {CatFileBatch, answerHeader} from '../../src/store/git/native.js'
import {listTreeNative} from '../../src/store/git/tree-list.js'
import {GIT_ENV, gitIn, makeRepo, tempDir} from '../helpers/repo.js'

// The readers of git's output parse bytes as they arrive from the pipe (64 KiB a read): a
// header, an object, a log entry or a tree entry may be cut anywhere. These write enough
// for many reads, with content chosen to look like the separators the parsers look for.

/** Deterministic bytes that hold newlines, spaces, tabs and NULs (what a parser might split on). */
function bytesOf(seed: number, size: number): Buffer {
  const b = Buffer.alloc(size)
  let x = seed * 2654435761 + 1
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) >>> 0
    const r = x >>> 24
    b[i] = r < 16 ? 10 : r < 32 ? 32 : r < 40 ? 9 : r < 44 ? 0 : r
  }
  return b
}

/** Run git with bytes on stdin (gitIn writes a string: UTF-8); resolves trimmed stdout. */
function gitBytes(cwd: string, args: string[], input: Buffer, env: NodeJS.ProcessEnv = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile('git', args, {cwd, env: {...GIT_ENV, ...env}, maxBuffer: 64 * 1024 * 1024}, (err, stdout, stderr) => {
      if (err) reject(new Error(`git ${args.join(' ')}: ${stderr || err.message}`))
      else resolve(stdout.trim())
    })
    child.stdin!.end(input)
  })
}

/** fast-import one commit per message onto `ref`, each adding the file `f<i>` (returns nothing; read the ref). */
async function importCommits(repo: string, ref: string, messages: readonly Buffer[]): Promise<void> {
  const parts: Buffer[] = []
  messages.forEach((m, i) => {
    const content = Buffer.from(`file ${i}\n`)
    parts.push(Buffer.from(`commit ${ref}\ncommitter exp test <test@exp.invalid> ${1700000000 + i} +0000\ndata ${m.length}\n`), m, Buffer.from(`\nM 100644 inline f${i}\ndata ${content.length}\n`), content, Buffer.from('\n'))
  })
  await gitBytes(repo, ['fast-import', '--quiet'], Buffer.concat(parts))
}

t.test('cat-file answers cut anywhere by the pipe: every object comes back whole, a missing one as an error in its place', async t => {
  const repo = await makeRepo(t)
  const sizes = [0, 1, 2, 65535, 65536, 65537, 140000]
  for (let i = 0; i < 400; i++) sizes.push(1 + ((i * 7919) % 3000))
  const blobs = sizes.map((n, i) => bytesOf(i, n))
  const dir = tempDir(t)
  const names = blobs.map((b, i) => {
    writeFileSync(path.join(dir, `b${i}`), b)
    return path.join(dir, `b${i}`)
  })
  const oids = (await gitIn(repo, ['hash-object', '-w', ...names], undefined)).split('\n')
  const reader = new CatFileBatch(path.join(repo, '.git'))
  t.teardown(() => reader.close())
  const missing = 'e'.repeat(40)
  const asked = [...oids.slice(0, 200), missing, ...oids.slice(200)]
  const got = await reader.readBatch(asked)
  t.equal(got.length, asked.length)
  t.ok(got[200] instanceof Error && /is missing/.test(got[200].message), 'the missing object is an error in its place')
  const back = got.filter((_, i) => i !== 200) as Buffer[]
  t.equal(back.filter((b, i) => Buffer.isBuffer(b) && b.equals(blobs[i]!)).length, blobs.length, 'every object is its bytes')
  // copied out as they arrive (the full read's slabs): the same bytes
  const kept = await reader.readBatch(oids, d => Buffer.from(d))
  t.equal(kept.filter((b, i) => Buffer.isBuffer(b) && b.equals(blobs[i]!)).length, blobs.length)
  // single reads between batches still line up with their answers
  const one = await reader.read(oids[3]!)
  t.equal(one.type, 'blob')
  t.ok(one.data.equals(blobs[3]!))
})

t.test('a cat-file answer header: its type and size read from the bytes, as the text would read', async t => {
  const oid = 'a'.repeat(40)
  const at = (line: string) => {
    const d = Buffer.from(`xx${line}\nrest`, 'latin1')
    return answerHeader(d, 2, d.indexOf(10))
  }
  for (const type of ['blob', 'tree', 'commit', 'tag'] as const) t.same(at(`${oid} ${type} 1234`), {type, size: 1234})
  t.same(at(`${oid} blob 0`), {type: 'blob', size: 0})
  t.same(at(`${oid} blob 007`), {type: 'blob', size: 7}, 'leading zeros, as Number() reads them')
  t.same(at(`${oid} blob 123456789012345`), {type: 'blob', size: 123456789012345}, 'fifteen digits')
  t.same(at(`${oid} blob 12345678901234567`), {type: 'blob', size: Number('12345678901234567')}, 'more: as Number() reads them (the caller refuses an unsafe size)')
  t.ok(Number.isNaN((at(`${oid} blob 12a`) as {size: number}).size), 'not a number')
  t.equal((at(`${oid} blob -1`) as {size: number}).size, -1, 'a sign, as Number() reads it (refused by the caller)')
  t.same(at(`${oid} blobs 5`), {type: 'blobs', size: 5}, 'an unknown type is named as it is')
  t.equal((at(`${oid} blob 5`) as {type: string}).type, 'blob')
  const missing = at(`${oid} missing`)
  t.ok(missing instanceof Error && /is missing/.test(missing.message), 'a missing object is an error naming it')
})

t.test('git log entries cut by the pipe: UTF-8 messages whole; a message holding \\x01 whole too (it is not the separator)', async t => {
  const repo = await makeRepo(t)
  // ~300 bytes of multi-byte UTF-8 a message: 700 commits are ~200 KiB of log, cut inside characters
  const messages = Array.from({length: 700}, (_, i) => Buffer.from(`subject ${i} ${'ünïcödé ✓ '.repeat(20)}\n\nExp-Lamport: ${i + 1}\n`))
  messages[350] = Buffer.from('subject with \x01 inside\n\nExp-Lamport: 351\n')
  // and one spelling out git log's old entry format after it: still one commit
  messages[200] = Buffer.from(`x\x01${'a'.repeat(40)}\x02${'b'.repeat(40)}\x02subject\n\nExp-Lamport: 201\n`)
  await importCommits(repo, 'refs/heads/l', messages)
  const want = (await gitIn(repo, ['rev-list', '--first-parent', 'refs/heads/l'], undefined)).split('\n')
  const tip = want[0]!
  const got: {oid: string; message: string; problem?: string}[] = []
  for await (const chunk of laneCommitChunksNative(path.join(repo, '.git'), tip, undefined, 64, 2, false, false)) {
    for (const c of chunk) got.push({oid: c.oid, message: c.message, ...(c.problem ? {problem: c.problem.code} : {})})
  }
  // newest first, one entry a commit, each message as written (git ends a message with one newline)
  t.notOk(got.some(c => c.problem), 'no entry git log gave is cut')
  t.same(got.map(c => c.oid), want)
  t.same(got.map(c => c.message), messages.reverse().map(m => m.toString('utf8')))
})

t.test('ls-tree entries cut by the pipe: every path (UTF-8, spaces, tabs) names its blob', async t => {
  const repo = await makeRepo(t)
  const files = Array.from({length: 1500}, (_, i) => `dir ${i % 7}/sub\t${i % 3}/fïlé ${i}-${'x'.repeat(i % 50)}.json`)
  // one index built by update-index --index-info (mode SP sha TAB path)
  const blob = await gitIn(repo, ['hash-object', '-w', '--stdin'], 'same content\n')
  const env = {GIT_INDEX_FILE: path.join(repo, '.git', 'parse-test.idx')}
  await gitBytes(repo, ['update-index', '-z', '--index-info'], Buffer.from(files.map(p => `100644 ${blob}\t${p}\0`).join(''), 'utf8'), env)
  const tree = await gitIn(repo, ['write-tree'], undefined, env)
  const commit = await gitIn(repo, ['commit-tree', tree, '-m', 'tree'], undefined, env)
  const got = await listTreeNative(path.join(repo, '.git'), commit)
  t.equal(got.size, files.length)
  t.same([...got.keys()].sort(), [...files].sort())
  t.ok([...got.values()].every(v => v === blob))
})

t.test('a tree that git fsck calls an error is corrupt to every reader: a name twice, empty, ., .., .git in any case, or with a slash', async t => {
  const {parseTree} = await import('../../src/store/git/objects.js')
  const entry = (name: string, n: number) => Buffer.concat([Buffer.from(`100644 ${name}\0`, 'utf8'), Buffer.alloc(20, n)])
  t.same(parseTree(Buffer.concat([entry('a', 1), entry('b', 2)])).map(e => e.name), ['a', 'b'])
  for (const names of [['SKILL.md', 'SKILL.md'], ['a', 'b', 'a'], ['c', 'a', 'b', 'a'], ['a', 'c', 'b', 'c'], [''], ['.'], ['..'], ['.git'], ['.GiT'], ['x/y']]) {
    try {
      parseTree(Buffer.concat(names.map((n, i) => entry(n, i))), 'f'.repeat(40))
      t.fail(`${JSON.stringify(names)} was read`)
    } catch (e) {
      t.match((e as Error & {code?: string}).code, 'E_CORRUPT', `${JSON.stringify(names)}: ${(e as Error).message}`)
    }
  }
})

// the near read parses each version of a folder against the last one (objects.ts parseTreeLike):
// whatever the two trees hold, the entries are parseTree's, and a tree parseTree refuses is refused
t.test('parseTreeLike gives what parseTree gives, for trees that are edits of another and for hostile ones', async t => {
  const {parseTree, parseTreeLike} = await import('../../src/store/git/objects.js')
  const entry = (mode: string, name: string, n: number) => Buffer.concat([Buffer.from(`${mode} ${name}\0`, 'utf8'), Buffer.alloc(20, n)])
  let seed = 11
  const rand = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 16) % n
  const pool = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'a', '', '.git', 'x/y', 'é']
  const outcome = (f: () => unknown) => {
    try {
      return {value: f()}
    } catch (e) {
      return {error: (e as Error).message}
    }
  }
  let reused = 0
  for (let k = 0; k < 400; k++) {
    // (distinct names, in order or not: a tree parseTree reads, mostly)
    const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].filter(() => rand(3) !== 0)
    if (rand(4) === 0) names.reverse()
    const base = names.map(name => ({mode: rand(4) === 0 ? '40000' : '100644', name, n: rand(3)}))
    const edited = base.filter(() => rand(5) !== 0).map(e => (rand(4) === 0 ? {...e, n: e.n + 1} : e))
    if (rand(2)) edited.splice(rand(edited.length + 1), 0, {mode: rand(9) === 0 ? '100755' : '100644', name: pool[rand(pool.length)]!, n: rand(3)})
    const likeData = Buffer.concat(base.map(e => entry(e.mode, e.name, e.n)))
    const data = Buffer.concat(edited.map(e => entry(e.mode, e.name, e.n)))
    const like = outcome(() => parseTreeLike(likeData, 'like', undefined))
    if (!('value' in like)) continue
    const got = outcome(() => parseTreeLike(data, 'f'.repeat(40), like.value as ReturnType<typeof parseTreeLike>).entries)
    t.same(got, outcome(() => parseTree(data, 'f'.repeat(40))), `${JSON.stringify(base.map(e => e.name))} -> ${JSON.stringify(edited.map(e => e.name))}`)
    if ('value' in got) reused += (got.value as object[]).filter(e => (like.value as {entries: object[]}).entries.includes(e)).length
  }
  t.ok(reused > 200, `entries of the earlier version are reused (${reused})`)
})
