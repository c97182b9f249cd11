import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp, expJson} from '../helpers/cli.js'
import {makeRepo} from '../helpers/repo.js'
import {GitRecordStore} from '../../src/store/index.js'
import {validationCopier} from '../helpers/trust.js'

// The compare arms of the report lacked the check c560240 gave the gain sides: `exp report`
// showed the arms of the newest compare note whose evaluations sat on lanes cmp-<id>-<arm> and
// stood, never asking whether they were what `exp compare` records: held-out evaluations of
// manifests it ran in the arm's namespace and memory mode, every arm on the same episodes. A
// lane that never ran `exp compare` re-labelled two validation evaluations onto such lanes and
// wrote a note: the report printed them as "held-out success per arm", with H2 on "paired
// held-out episodes", fsck clean.

t.test('the report shows compare arms only on held-out evaluations exp compare recorded', async t => {
  const repo = await makeRepo(t)
  const env = {EXP_LANE: 'alice'}
  t.equal((await exp(['init', '--example', 'onboarding'], {cwd: repo, env})).code, 0)
  const ran = await exp(['compare', '--arms', 'baseline,compiler', '--budget-episodes', '100', '-n', '1', '--repeat', '1', '--train-repeat', '1', '--json'], {cwd: repo, env})
  t.equal(ran.code, 0, ran.stderr)
  const honest = (JSON.parse(ran.stdout) as {id: string}).id

  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  const ledger = await store.ledger()
  // the compiler arm's own validation runs (its loop's eval): public, standing evaluations
  const relabel = validationCopier(store, ledger)
  const G = 'abcdefabcdef'
  const arm = async (name: string, mode: string, role: string) => ({arm: name, mode, episodes: 150, namespace: `cmp-${G}-${name}`, evaluation: await relabel(role, `cmp-${G}-${name}`)})
  const note = {arms: [await arm('baseline', 'off', 'baseline'), await arm('compiler', 'record_only', 'candidate')], hypotheses: [], pairs: []}
  await store.append({kind: 'note', body: {text: `compare ${G}: ${JSON.stringify(note)}`, action: 'comment'}}, {lane: `cmp-${G}`})

  const report = await expJson<{research?: {compare?: {id: string; arms: {arm: string; total: number}[]}}}>(['report', '--out', 'site'], {cwd: repo})
  t.equal(report.research?.compare?.id, honest, 'the compare exp compare ran is shown, not the re-labelled one')
  const md = fs.readFileSync(path.join(repo, 'site/report.md'), 'utf8')
  t.notMatch(md, G, 'the made-up comparison is not shown')
  t.match(md, new RegExp(`Latest \`exp compare\` \\(${honest}, note nt-`))
})
