import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {MemoryRecordStore} from '../../src/store/index.js'
import {MemoryWorkspace} from '../../src/workspace/memory.js'
import {evolve} from '../../src/loop/evolve.js'
import {deterministicMine} from '../../src/loop/mine-step.js'
import {gate} from '../../src/gate/gate.js'
import {findHoldoutKey} from '../../src/scenarios/key.js'
import {exampleRepo} from '../helpers/evolve.js'
import {git, tempDir} from '../helpers/repo.js'

// The skill loop and the gate speak to ports only (RecordStore, Workspace): here both run on
// the memory adapters. The example's files are copied into a MemoryWorkspace and its
// scenarios into a folder that is not a repository; the git repository they came from must
// not move, so nothing reached git behind the ports.
t.test('exp evolve and exp gate over the memory adapters of RecordStore and Workspace', async t => {
  const repo = await exampleRepo(t)
  const before = (await git(repo, 'for-each-ref')).trim()
  const files = (await git(repo, 'ls-files', '-z')).split('\0').filter(Boolean)
  const ws = new MemoryWorkspace()
  const start = ws.seed('main', Object.fromEntries(files.map(f => [f, fs.readFileSync(path.join(repo, f), 'utf8')])))
  const outside = tempDir(t)
  fs.cpSync(path.join(repo, 'scenarios'), path.join(outside, 'scenarios'), {recursive: true})
  const key = await findHoldoutKey({env: {}, defaultFile: path.join(repo, '.git', 'exp', 'holdout.key')})
  const store = new MemoryRecordStore()
  const run = {agent: 'scripted', scenariosDir: path.join(outside, 'scenarios'), skillsDir: path.join(outside, 'skills'), cwd: outside, lane: 'me', seed: 42, concurrency: 2, ...(key ? {holdoutKey: key} : {})}

  const res = await evolve(store, ws, {...run, skill: 'onboarding', mainRef: 'refs/heads/main', iterations: 1, trainRepeat: 2, evalRepeat: 2, recall: {items: 8, tokens: 1200}, mine: deterministicMine})
  const it = res.iterations[0]!
  t.equal(it.decision?.verdict, 'accept', 'the first candidate is promoted, as on git')
  const main = (await ws.readRef('refs/heads/main'))!
  t.equal(main, it.decision?.merge, 'main is the promotion merge, in the memory workspace')
  const merge = await ws.readCommit(main)
  t.equal(merge.parents.length, 2)
  t.equal(merge.parents[0], start)
  t.match(merge.message, /Exp-Promotes: pr-/)
  const ledger = await store.ledger()
  t.ok(ledger.select({kinds: ['trace']}).length > 0, 'episodes recorded in the memory store')
  t.equal(ledger.select({kinds: ['decision']}).length, 1)
  t.ok(res.holdout_after > res.holdout_before, `held-out ${res.holdout_before} -> ${res.holdout_after}`)

  // the gate judges the promoted change against the start, records to its own lane of the memory store
  const g = await gate(store, ws, {...run, lane: 'gate', base: start, head: merge.parents[1]!, repeat: 2, worktreeRoot: path.join(outside, 'worktrees')})
  t.ok(g.scope.ok, g.reasons.join('; '))
  t.equal(g.skills.length, 1)
  t.equal(g.skills[0]!.skill, 'onboarding')
  t.equal(g.passed, true, g.reasons.join('; '))
  t.ok((await store.ledger()).select({kinds: ['evaluation'], lanes: ['gate']}).length >= 2, 'the gate recorded its evaluations')

  t.equal((await git(repo, 'for-each-ref')).trim(), before, 'the git repository did not move')
  t.equal(fs.existsSync(path.join(outside, '.git')), false)
})
