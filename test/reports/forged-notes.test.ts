import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp, expJson} from '../helpers/cli.js'
import {exampleRepo} from '../helpers/evolve.js'
import {GitRecordStore} from '../../src/store/index.js'
import type {Report} from '../../src/reports/index.js'

// Found by an attack sweep: one note on a compare lane `cmp-<id>` whose arm's `mode` was a
// number stopped `exp report` for every clone ("s.replace is not a function … this is
// unexpected"), and an arm's `episodes` went into report.md and report.html unescaped. The
// report read the fields of compare and gain notes without asking their types. Each field it
// reads is now checked by the note's reader (src/reports/notes.ts): a note with one of another
// type is left out, named on stderr, and the report is written from the honest notes.

type Json = Record<string, unknown>

t.test('exp report passes over compare and gain notes with fields of other types, names them, and shows the honest results', async t => {
  const repo = await exampleRepo(t)
  const small = ['-n', '1', '--repeat', '1', '--train-repeat', '1', '--budget-episodes', '50']
  const cmp = await expJson<{id: string; note: string}>(['compare', '--arms', 'baseline,memory', ...small], {cwd: repo})
  const gain = await expJson<{id: string; note: string}>(['gain', '-n', '1', '--repeat', '1'], {cwd: repo})

  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  const ledger = await store.ledger()
  const summary = (id: string, head: string) => JSON.parse(ledger.load<'note'>(ledger.get(id)!).body.text.slice(head.length)) as Json
  const honestCompare = summary(cmp.note, `compare ${cmp.id}: `)
  const honestGain = summary(gain.note, `gain ${gain.id}: `)

  // notes with a field the report reads of another type (test/reports/notes.test.ts tries every
  // field), written after the honest note on its own lane (where a view looks first)
  const edit = (base: Json, f: (j: Json & {[k: string]: any}) => void) => {
    const j = structuredClone(base) as Json & {[k: string]: any}
    f(j)
    return j
  }
  const compares: Record<string, Json | string> = {
    'arms[0].mode': edit(honestCompare, j => (j.arms[0].mode = 7)),
    'arms[0].episodes': edit(honestCompare, j => (j.arms[0].episodes = '<img src=x onerror=alert(1)>')),
    'arms[0].evaluation': edit(honestCompare, j => (j.arms[0].evaluation = {id: j.arms[0].evaluation})),
    arms: edit(honestCompare, j => (j.arms = 'all')),
    'hypotheses[0].id': edit(honestCompare, j => (j.hypotheses[0].id = 1)),
    'pairs[0].bootstrap_ci': edit(honestCompare, j => (j.pairs[0].bootstrap_ci = [0])),
    'its JSON does not parse': '{"arms": [}',
  }
  const gains: Record<string, Json> = {
    'closed_loop.mode': edit(honestGain, j => (j.closed_loop.mode = 7)),
    'off.evaluation': edit(honestGain, j => (j.off.evaluation = [j.off.evaluation])),
    'closed_loop.metrics.invalid_rate': edit(honestGain, j => (j.closed_loop.metrics.invalid_rate = '<b>0</b>')),
    'off.metrics': edit(honestGain, j => (j.off.metrics = null)),
    ci: edit(honestGain, j => (j.ci = 'wide')),
    pairs: edit(honestGain, j => (j.pairs = '12')),
    off: edit(honestGain, j => delete j.off),
  }
  const forged = new Map<string, string>()
  for (const [field, j] of Object.entries(compares)) {
    const text = `compare ${cmp.id}: ${typeof j === 'string' ? j : JSON.stringify(j)}`
    forged.set((await store.append({kind: 'note', body: {text, action: 'comment'}}, {lane: `cmp-${cmp.id}`})).id, field)
  }
  for (const [field, j] of Object.entries(gains)) forged.set((await store.append({kind: 'note', body: {text: `gain ${gain.id}: ${JSON.stringify(j)}`, action: 'comment'}}, {lane: `gain-${gain.id}`})).id, field)

  const report = await exp(['report', '--out', 'site'], {cwd: repo})
  t.equal(report.code, 0, report.stderr)
  t.notMatch(report.stderr, /unexpected|is not a function/)
  for (const [id, field] of forged) t.match(report.stderr, new RegExp(`warning: skipped note ${id}: a malformed (compare|gain) note \\(${field.replace(/[.[\]]/g, '\\$&')}\\b`), `${field}: named, with the field`)
  t.notMatch(report.stderr, new RegExp(`${cmp.note}|${gain.note}`), 'the honest notes are not named')
  const md = fs.readFileSync(path.join(repo, 'site/report.md'), 'utf8')
  const html = fs.readFileSync(path.join(repo, 'site/report.html'), 'utf8')
  t.match(md, `Latest \`exp compare\` (${cmp.id}, note ${cmp.note})`, 'the honest compare note is shown')
  t.match(md, /\| baseline \| off \| [\d.]+% \|/)
  t.match(md, /\| memory \| closed\\_loop \| [\d.]+% \|/)
  t.match(md, new RegExp(`\\*\\*Experience Gain [+-]\\d+\\.\\d points\\*\\* \\(\`exp gain\` ${gain.id}\\)`), 'the honest gain is shown')
  t.notMatch(md + html, /<img|onerror|<b>0/, 'no text of a forged note reaches the report')
  const json = await expJson<Report>(['report', '--out', 'site'], {cwd: repo})
  t.equal(json.research?.compare?.note, cmp.note)
  t.equal(json.research?.gain?.note, gain.note)
})
