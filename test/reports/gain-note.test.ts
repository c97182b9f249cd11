import t from 'tap'
import type {Test} from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp} from '../helpers/cli.js'
import {makeRepo, tempDir} from '../helpers/repo.js'
import {cachedFixture} from '../helpers/fixture-cache.js'
import {GitRecordStore} from '../../src/store/index.js'
import {validationCopier} from '../helpers/trust.js'

// Found by a review of the derived views: `exp report` showed the Experience Gain of the newest
// gain note whose two evaluations sat on lanes gain-<id>-closed_loop / gain-<id>-off and stood,
// never asking whether they were what `exp gain` records: held-out evaluations of manifests it
// ran in those namespaces and memory modes, on the same episodes. A lane that never ran
// `exp gain` re-labelled two validation evaluations onto such lanes and wrote a note: the report
// printed "Experience Gain +54.0 points … held-out" and four metrics of its choosing, fsck clean.

/**
 * A copy, for this test, of a repository where alice ran `exp gain` once: it, the gain's id, and
 * its store. The run is made once per version of the code (cachedFixture), not once per test.
 */
async function gained(t: Test): Promise<{repo: string; honest: string; store: GitRecordStore}> {
  const {dir, data} = await cachedFixture('gain-once', ['src', 'scenarios', 'skills', 'schemas', 'examples', 'test/reports/gain-note.test.ts', 'test/helpers/repo.ts'], async repo => {
    fs.cpSync(await makeRepo(t), repo, {recursive: true})
    const env = {EXP_LANE: 'alice'}
    t.equal((await exp(['init', '--example', 'onboarding'], {cwd: repo, env})).code, 0)
    const ran = await exp(['gain', '-n', '1', '--repeat', '1', '--json'], {cwd: repo, env})
    t.equal(ran.code, 0, ran.stderr)
    return (JSON.parse(ran.stdout) as {id: string}).id
  })
  const repo = tempDir(t)
  fs.cpSync(dir, repo, {recursive: true})
  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  return {repo, honest: data, store}
}

t.test('the report shows a gain only on held-out evaluations exp gain recorded, and says its metrics are the note\'s', async t => {
  const {repo, honest, store} = await gained(t)
  const ledger = await store.ledger()
  const relabel = validationCopier(store, ledger)
  const G = 'abcdefabcdef'
  const on = await relabel('candidate', `gain-${G}-closed_loop`)
  const off = await relabel('baseline', `gain-${G}-off`)
  const metrics = (m: number) => ({repeated_failure_rate: m, invalid_rate: m, recalled_cited_rate: 1 - m, hypothesis_redundancy: m})
  const note = {closed_loop: {mode: 'closed_loop', namespace: `gain-${G}-closed_loop`, evaluation: on, metrics: metrics(0)}, off: {mode: 'off', namespace: `gain-${G}-off`, evaluation: off, metrics: metrics(0.9)}}
  await store.append({kind: 'note', body: {text: `gain ${G}: ${JSON.stringify(note)}`, action: 'comment'}}, {lane: `gain-${G}`})

  const report = await exp(['report', '--out', 'site'], {cwd: repo})
  t.equal(report.code, 0, report.stderr)
  const md = fs.readFileSync(path.join(repo, 'site/report.md'), 'utf8')
  const html = fs.readFileSync(path.join(repo, 'site/report.html'), 'utf8')
  t.notMatch(md, G, 'the made-up gain is not shown')
  t.match(md, new RegExp(`\\*\\*Experience Gain [+-]\\d+\\.\\d points\\*\\* \\(\`exp gain\` ${honest}\\)`), 'the gain exp gain measured is')
  t.match(md, /The four metrics are as the gain note records them: they are not recomputed here\./)
  t.match(html, /The four metrics are as the gain note records them/)
})

t.test("a gain note's mode words are not what the report says of a side: the side's manifest is", async t => {
  const {repo, honest, store} = await gained(t)
  const notes = (await store.ledger()).records({kinds: ['note']}).filter(n => String((n.body as {text?: string}).text).startsWith(`gain ${honest}:`))
  t.equal(notes.length, 1)
  // written again on the gain's lane (any lane can write there), later, with each side's mode word swapped
  const text = String((notes[0]!.body as {text: string}).text)
  const json = JSON.parse(text.slice(text.indexOf(':') + 1)) as {closed_loop: {mode: string}; off: {mode: string}}
  json.closed_loop.mode = 'off'
  json.off.mode = 'closed_loop'
  await store.append({kind: 'note', body: {text: `gain ${honest}: ${JSON.stringify(json)}`, action: 'comment'}}, {lane: notes[0]!.lane})
  const report = await exp(['report', '--out', 'site', '--json'], {cwd: repo})
  t.equal(report.code, 0, report.stderr)
  const gain = (JSON.parse(report.stdout) as {research: {gain: {id: string; sides: {mode: string}[]}}}).research.gain
  t.equal(gain.id, honest)
  t.same(gain.sides.map(s => s.mode), ['closed_loop', 'off'], 'the modes the sides ran in')
})
