import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp, expJson} from '../helpers/cli.js'
import {makeRepo, git, tempDir} from '../helpers/repo.js'

t.test('init writes commented defaults, adds refspecs, and is idempotent', async t => {
  const repo = await makeRepo(t)
  await git(repo, 'remote', 'add', 'origin', 'https://example.invalid/x.git')
  const r1 = await exp(['init'], {cwd: repo})
  t.equal(r1.code, 0, r1.stderr)
  t.match(r1.stdout, /created \.research\/config\.yaml/)
  t.match(fs.readFileSync(path.join(repo, '.research/policy.yaml'), 'utf8'), /^# The promotion policy/)
  t.match(await git(repo, 'config', '--get-all', 'remote.origin.fetch'), /refs\/research\/\*:refs\/research\/\*\n\^refs\/research\/private\/\*/)
  const r2 = await expJson<{created: string[]; kept: string[]; refspecs: string[]}>(['init'], {cwd: repo})
  t.same(r2.created, [])
  t.equal(r2.kept.length, 3)
  t.same(r2.refspecs, [], 'nothing added twice')
})

t.test('append reads a file, stdin, or JSON Lines, and prints ids', async t => {
  const repo = await makeRepo(t)
  fs.writeFileSync(path.join(repo, 'n.yaml'), 'text: from a file\n')
  const a = await exp(['append', 'note', 'n.yaml', '--lane', 'alice'], {cwd: repo})
  t.equal(a.code, 0, a.stderr)
  t.match(a.stdout, /^nt-[0-9a-f]{24}\n$/)
  const again = await exp(['append', 'note', 'n.yaml', '--lane', 'alice'], {cwd: repo})
  t.match(again.stdout, /\(exists\)/, 'the same record again is a no-op')
  const b = await expJson<{id: string; lane: string}>(['append', 'note', '-', '--lane', 'bob', '--cite', a.stdout.trim()], {cwd: repo, input: '{"text": "from stdin"}'})
  t.equal(b.lane, 'bob')
  const lines = [{text: 'one'}, {kind: 'note', body: {text: 'two'}}, {body: {text: 'three'}, key: 'k3'}].map(x => JSON.stringify(x)).join('\n')
  const c = await expJson<{status: string}[]>(['append', 'note', '-', '--batch'], {cwd: repo, input: lines, env: {EXP_LANE: 'ci'}})
  t.equal(c.length, 3)
  const ledger = await expJson<{lane: string; cites: string[]}[]>(['ledger'], {cwd: repo})
  t.same(ledger.map(r => r.lane), ['alice', 'bob', 'ci', 'ci', 'ci'])
  t.same(ledger[1]!.cites, [a.stdout.trim()])
})

t.test('bad input gets a clear message, a non-zero exit, and writes nothing', async t => {
  const repo = await makeRepo(t)
  const cases: [string[], string, RegExp, number][] = [
    [['append', 'note', '-'], 'text: [oops', /<stdin>:1:12: /, 2],
    [['append', 'note', '-'], 'txt: hello', /body\.text is required/, 2],
    [['append', 'memo', '-'], 'text: x', /unknown record kind: memo[\s\S]*hint: use one of: manifest/, 2],
    // (found by a sweep: a file given alone was taken for the kind, and stdin read for the body)
    [['append', 'note.json'], 'text: x', /unknown record kind: note\.json[\s\S]*hint: the kind comes first \(exp append KIND note\.json\); use one of: manifest/, 2],
    [['append', 'note', '-', '--lane', '../escape'], 'text: x', /invalid lane name \(--lane\) "\.\.\/escape"/, 2],
    [['append', 'note', '-', '--batch'], '{"text":"ok"}\n{"text": 1}\n', /<stdin>:2: .*body\.text must be string/, 2],
    [['append', 'note', '-', '--batch'], '{"text":"ok"}\nnot json\n', /<stdin>:2: invalid JSON/, 2],
    [['inspect', 'nt-000000000000000000000000'], '', /unknown record id/, 3],
    [['ledger', '--kind', 'memo'], '', /unknown record kind/, 2],
  ]
  for (const [args, input, re, code] of cases) {
    const r = await exp(args, {cwd: repo, input, env: {EXP_LANE: 'x'}})
    t.equal(r.code, code, `${args.join(' ')} exits ${code}`)
    t.match(r.stderr, re)
    t.notMatch(r.stderr, /\n\s+at /, 'no stack trace')
  }
  t.same(await expJson(['ledger'], {cwd: repo}), [], 'nothing was written')
  const outside = tempDir(t)
  const r = await exp(['ledger'], {cwd: outside})
  t.equal(r.code, 3)
  t.match(r.stderr, /not a git repository/)
  const dbg = await exp(['ledger', '--debug'], {cwd: outside})
  t.match(dbg.stderr, /\n\s+at /, '--debug shows the stack')
})

t.test('ledger filters, inspect shows both directions, lanes and fsck report', async t => {
  const repo = await makeRepo(t)
  const k = (await exp(['append', 'knowledge', '-', '--lane', 'a'], {cwd: repo, input: JSON.stringify({slug: 'check-stock', claim: {type: 'procedure', text: 'Check stock first.'}, scope: {workflows: ['onboarding']}, conditions: [], evidence: {supporting_runs: [], counterexamples: [], evidence_ids: []}, statistics: {support: 3, failures: 1}, confidence: 0.7, status: 'candidate', supersedes: [], contradicts: []})})).stdout.trim()
  const n = (await exp(['append', 'note', '-', '--lane', 'b', '--cite', k], {cwd: repo, input: 'text: see this'})).stdout.trim()
  await exp(['append', 'note', '-', '--lane', 'b', '--private'], {cwd: repo, input: 'text: secret'})
  const text = await exp(['ledger'], {cwd: repo})
  t.match(text.stdout, /LAMPORT\s+LANE\s+KIND\s+ID\s+SUMMARY\n1\s+a\s+knowledge/)
  t.equal((await expJson<unknown[]>(['ledger', '--kind', 'note'], {cwd: repo})).length, 2)
  t.equal((await expJson<unknown[]>(['ledger', '--no-private'], {cwd: repo})).length, 2)
  t.same((await expJson<{id: string}[]>(['ledger', '--cites', k], {cwd: repo})).map(r => r.id), [n])
  t.equal((await expJson<unknown[]>(['ledger', '--since', '2'], {cwd: repo})).length, 1)
  t.equal((await expJson<unknown[]>(['ledger', '--lane', 'a'], {cwd: repo})).length, 1)
  const ins = await expJson<{cited_by: {id: string}[]; ref: string; path: string}>(['inspect', k], {cwd: repo})
  t.same(ins.cited_by.map(c => c.id), [n])
  t.equal(ins.ref, 'refs/research/lanes/a')
  t.match((await exp(['inspect', n], {cwd: repo})).stdout, new RegExp(`cites: \\n  ${k}  knowledge: check-stock`))
  const lanes = await expJson<{lane: string; private: boolean; records: number}[]>(['lanes'], {cwd: repo})
  t.same(lanes.map(l => [l.lane, l.private, l.records]), [['a', false, 1], ['b', false, 1], ['b', true, 1]])
  const f = await exp(['fsck'], {cwd: repo})
  t.equal(f.code, 0)
  t.match(f.stderr, /3 records on 3 lanes, 0 problem/)
})

t.test('fsck and ledger --strict fail on a damaged lane; gc packs objects', async t => {
  const repo = await makeRepo(t)
  await exp(['append', 'note', '-', '--lane', 'a'], {cwd: repo, input: 'text: fine'})
  // a plain commit on the lane that is not a record
  await git(repo, 'update-ref', 'refs/research/lanes/z', 'HEAD')
  const f = await exp(['fsck'], {cwd: repo})
  t.equal(f.code, 5)
  t.match(f.stdout, /refs\/research\/lanes\/z [0-9a-f]{12}: commit has no Exp-Record trailer/)
  const fj = await exp(['fsck', '--json'], {cwd: repo})
  t.equal(JSON.parse(fj.stdout).error.data.problems.length, 1)
  const l = await exp(['ledger'], {cwd: repo})
  t.equal(l.code, 0)
  t.match(l.stderr, /warning: skipped refs\/research\/lanes\/z/)
  t.equal((await exp(['ledger', '--strict'], {cwd: repo})).code, 5)
  const gc = await expJson<{looseAfter: number; packsAfter: number}>(['gc'], {cwd: repo})
  t.equal(gc.looseAfter, 0)
  t.ok(gc.packsAfter >= 1)
  t.equal((await expJson<unknown[]>(['ledger'], {cwd: repo})).length, 1, 'still readable after gc and pack-refs')
})

t.test('every command has --help', async t => {
  for (const cmd of ['init', 'append', 'ledger', 'inspect', 'lanes', 'fsck', 'sync', 'gc']) {
    const r = await exp([cmd, '--help'], {cwd: process.cwd()})
    t.equal(r.code, 0, cmd)
    t.match(r.stdout, /USAGE/, `${cmd} --help shows usage`)
  }
})

t.test('inspect of a record the read skipped says why it is not shown, not that the id is unknown', async t => {
  const repo = await makeRepo(t)
  const ids: string[] = []
  for (const text of ['one', 'two', 'three']) ids.push((await exp(['append', 'note', '-', '--lane', 'p'], {cwd: repo, input: `text: ${text}\n`})).stdout.trim())
  // the second record's object damaged in place (a disk error, a bad copy)
  const line = (await git(repo, 'ls-tree', '-r', 'refs/research/lanes/p')).split('\n').find(l => l.endsWith(`${ids[1]}.json`))!
  const blob = line.split(/\s+/)[2]!
  const file = path.join(repo, '.git', 'objects', blob.slice(0, 2), blob.slice(2))
  fs.chmodSync(file, 0o644)
  fs.writeFileSync(file, 'garbage')
  fs.rmSync(path.join(repo, '.git', 'exp'), {recursive: true, force: true})
  const r = await exp(['inspect', ids[1]!], {cwd: repo})
  t.equal(r.code, 5, r.stderr)
  t.match(r.stderr, new RegExp(`^error: record ${ids[1]} is in this clone \\(refs/research/lanes/p [0-9a-f]{12} research/notes/[0-9a-f]{2}/${ids[1]}\\.json\\) but is not shown: unreadable object ${blob}`, 'm'))
  t.match(r.stderr, /^hint: the object is missing or damaged: fetch the lane again with `exp sync`; `exp fsck` lists every problem$/m)
  const j = await exp(['inspect', ids[1]!, '--json'], {cwd: repo})
  t.match(JSON.parse(j.stdout), {error: {code: 'E_CORRUPT', data: {id: ids[1], code: 'record-unreadable', ref: 'refs/research/lanes/p'}}})
  const ok = await exp(['inspect', ids[2]!], {cwd: repo})
  t.equal(ok.code, 0, 'the records around it are shown')
  const unknown = await exp(['inspect', 'nt-0123456789abcdef01234567'], {cwd: repo})
  t.equal(unknown.code, 3, 'an id this clone never had is still unknown')
})

// Found by a sweep: a lane replaced by other history, then `git gc --prune=now` (its old tip now
// unreachable), was read on from the tip the cache held, which git no longer had: `exp lanes`
// called the lane UNREADABLE and exited 5, though its history was whole.
t.test('a lane whose cached tip was pruned after the lane was replaced is read in full, not called unreadable', async t => {
  const repo = await makeRepo(t)
  t.equal((await exp(['append', 'note', '-', '--lane', 'shared'], {cwd: repo, input: 'text: mine'})).code, 0)
  t.equal((await exp(['lanes'], {cwd: repo})).code, 0, 'the cache holds the lane at its first tip')
  await git(repo, 'update-ref', '-d', 'refs/research/lanes/shared')
  t.equal((await exp(['append', 'note', '-', '--lane', 'shared'], {cwd: repo, input: 'text: theirs'})).code, 0)
  await git(repo, 'reflog', 'expire', '--expire=now', '--all')
  await git(repo, 'gc', '-q', '--prune=now')
  const lanes = await exp(['lanes', '--json'], {cwd: repo})
  t.equal(lanes.code, 0, lanes.stderr)
  t.match(JSON.parse(lanes.stdout), [{lane: 'shared', records: 1}])
  t.notMatch(lanes.stderr, /cannot be read/)
})
