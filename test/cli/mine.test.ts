import t from 'tap'
import {exp, expJson} from '../helpers/cli.js'
import {benchmarkRepo} from '../helpers/research.js'

interface MineJson {
  evidence: string[]
  knowledge: string[]
  skipped: number
}

t.test('exp mine records evidence then knowledge from train traces; again, nothing new', async t => {
  const repo = await benchmarkRepo(t)
  const train = await expJson<{manifest: string}>(['run', 'train', '--repeat', '3', '--seed', '1', '--lane', 'me'], {cwd: repo})
  const first = await expJson<MineJson>(['mine', '--lane', 'me'], {cwd: repo})
  t.ok(first.evidence.length >= 5, `${first.evidence.length} evidence records`)
  t.equal(first.knowledge.length, first.evidence.length, 'one claim per finding')
  t.equal(first.skipped, 0)
  const cited = await expJson<{id: string}[]>(['ledger', '--kind', 'knowledge', '--cites', first.evidence[0]!], {cwd: repo})
  t.ok(cited.length >= 1, 'knowledge cites its evidence')
  const again = await expJson<MineJson>(['mine', '--lane', 'me', '--manifest', train.manifest], {cwd: repo})
  t.same(again.evidence, first.evidence, 'the same evidence (already recorded)')
  t.same(again.knowledge, [], 'no knowledge changed')
  const text = await exp(['mine', '--lane', 'me'], {cwd: repo})
  t.match(text.stdout, /PATTERN\s+SIGNATURE\s+SUPPORT\s+FAILURES\s+CONFIDENCE\n/)
  t.match(text.stdout, /train trace\(s\) mined, 0 skipped; \d+ evidence, 0 new knowledge record\(s\)/)
  // another lane mining the same runs drafts the same claims, which are recorded already: it says so, and writes nothing
  const other = await exp(['mine', '--lane', 'other'], {cwd: repo})
  t.match(other.stdout, new RegExp(`; ${first.evidence.length} evidence, 0 new knowledge record\\(s\\) \\(${first.knowledge.length} more the same as another lane's, recorded there already\\)`))
  t.match((await exp(['ledger', '--lane', 'other'], {cwd: repo})).stderr, /unknown lane: other/, 'nothing written: lane other does not exist')
})

t.test('exp mine refuses any split but train, with exit status 2', async t => {
  const repo = await benchmarkRepo(t)
  const r = await exp(['mine', '--split', 'validation'], {cwd: repo})
  t.equal(r.code, 2)
  t.match(r.stderr, /cannot mine the validation split: the miner learns from train traces only/)
  const val = await expJson<{manifest: string}>(['run', 'validation', '--lane', 'me'], {cwd: repo})
  const m = await exp(['mine', '--manifest', val.manifest, '--json'], {cwd: repo})
  t.equal(m.code, 2)
  t.match(JSON.parse(m.stdout), {error: {code: 'E_SPLIT', data: {what: 'manifest', split: 'validation'}}})
})
