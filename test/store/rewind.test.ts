import t, {type Test} from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {GitRecordStore} from '../../src/store/index.js'
import {fsck} from '../../src/store/git/fsck.js'
import {makeRepo, git} from '../helpers/repo.js'
import {sampleDraft} from '../helpers/records.js'
import {exp, expJson} from '../helpers/cli.js'

async function laneOf20(t: Test): Promise<string> {
  const repo = await makeRepo(t)
  const s = await GitRecordStore.open(repo)
  for (let i = 0; i < 20; i++) await s.append(sampleDraft('note', i), {lane: 'p'})
  await s.append(sampleDraft('note', 100), {lane: 'q'})
  await s.close()
  t.equal((await expJson<unknown[]>(['ledger'], {cwd: repo})).length, 21, 'the clone has seen every record')
  return repo
}

t.test('a lane rewound by hand (update-ref p p~10) is reported by ledger (warning) and fsck (problem), with or without the cache', async t => {
  const repo = await laneOf20(t)
  const tip = (await git(repo, 'rev-parse', 'refs/research/lanes/p')).trim()
  await git(repo, 'update-ref', 'refs/research/lanes/p', 'refs/research/lanes/p~10')
  const l = await exp(['ledger', '--json'], {cwd: repo})
  t.equal(l.code, 0, 'a warning, not a failure: the lane as it is now is still listed')
  t.equal((JSON.parse(l.stdout) as unknown[]).length, 11)
  t.match(l.stderr, new RegExp(`warning: refs/research/lanes/p moved from ${tip.slice(0, 12)} \\(20 records\\) to [0-9a-f]{12} \\(10 records\\), which does not contain it`))
  t.match(l.stderr, /exp sync/, 'with the way back')
  fs.rmSync(path.join(repo, '.git/exp/cache-v4'), {recursive: true, force: true})
  const again = await exp(['ledger'], {cwd: repo})
  t.match(again.stderr, /refs\/research\/lanes\/p moved from/, 'the seen tips outlive the cache')
  const f = await exp(['fsck', '--json'], {cwd: repo})
  t.equal(f.code, 5)
  const problems = (JSON.parse(f.stdout) as {error: {data: {problems: {code: string; ref: string}[]}}}).error.data.problems
  t.same(problems.map(p => [p.code, p.ref]), [['lane-rewound', 'refs/research/lanes/p']])
  // putting the lane back makes it clean again
  await git(repo, 'update-ref', 'refs/research/lanes/p', tip)
  const back = await exp(['ledger', '--json'], {cwd: repo})
  t.notMatch(back.stderr, /moved from/)
  t.equal((await exp(['fsck'], {cwd: repo})).code, 0)
})

t.test('a lane rewritten to a different history, or deleted, is reported the same way; growth is not', async t => {
  const repo = await laneOf20(t)
  const s = await GitRecordStore.open(repo, {onWarning: () => undefined})
  await s.append(sampleDraft('note', 200), {lane: 'p'})
  t.same((await s.ledger()).problems, [], 'a lane that grew is fine')
  await s.close()
  // a different history under the same name: back to p~5, then a new record on top
  await git(repo, 'update-ref', 'refs/research/lanes/p', 'refs/research/lanes/p~5')
  const w = await GitRecordStore.open(repo, {onWarning: () => undefined})
  await w.append(sampleDraft('note', 300), {lane: 'p'})
  const ledger = await w.ledger()
  t.same(ledger.problems.map(p => p.code), ['lane-rewound'])
  await w.close()
  await git(repo, 'update-ref', '-d', 'refs/research/lanes/q')
  const d = await GitRecordStore.open(repo, {onWarning: () => undefined})
  const problems = (await d.ledger()).problems
  t.match(problems.map(p => p.message).join('\n'), /refs\/research\/lanes\/q was deleted \(it held 1 record at [0-9a-f]{12}\)/)
  t.ok((await fsck(d)).problems.some(p => p.code === 'lane-rewound' && p.ref === 'refs/research/lanes/q'))
  await d.close()
})
