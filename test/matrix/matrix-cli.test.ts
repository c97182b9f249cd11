import t from 'tap'
import {existsSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {exp, expJson} from '../helpers/cli.js'
import {expBatch} from '../helpers/cli-batch.js'
import {git} from '../helpers/repo.js'
import {exampleRepo} from '../helpers/evolve.js'
import {RULE_CLASSES} from '../../src/matrix/classify.js'
import type {MatrixResult} from '../../src/matrix/matrix.js'

// a third of the built-in train and validation scenarios (the sealed held-out split stays whole): a real matrix, small
const TINY = ['-n', '1', '--train-repeat', '2', '--eval-repeat', '1', '--holdout-repeat', '1', '--evidence-repeat', '1']

async function tinyRepo(t: Parameters<typeof exampleRepo>[0]): Promise<string> {
  const repo = await exampleRepo(t)
  const dir = path.join(repo, 'scenarios')
  for (const prefix of ['train-', 'val-']) readdirSync(dir).filter(f => f.startsWith(prefix)).sort().forEach((f, i) => i % 3 !== 0 && rmSync(path.join(dir, f)))
  // and a policy for so few pairs: the statistical gate's McNemar level would reject every candidate of 9 pairs
  const policy = path.join(repo, '.research', 'policy.yaml')
  writeFileSync(policy, readFileSync(policy, 'utf8').replace(/mcnemar_p_max: [0-9.]+/, 'mcnemar_p_max: 0.5').replace(/looks: \d+/, 'looks: 1'))
  await git(repo, 'add', '-A')
  await git(repo, 'commit', '-qm', 'a smaller scenario set')
  return repo
}

const refsOf = async (repo: string) => (await git(repo, 'for-each-ref', '--format=%(refname) %(objectname)')).trim()

t.test('exp matrix: bad input is refused before anything is written; then 3 x 3 from real runs, every rule classed with a reason, H4 stated; a rerun redoes nothing', async t => {
  const repo = await tinyRepo(t)
  const main = (await git(repo, 'rev-parse', 'HEAD')).trim()
  const before = await refsOf(repo)
  const bad = [
    [['--executor', 'gpt-4o'], 2, /unknown agent: "gpt-4o"/],
    [['--skill-source', 'scripted:sloppy'], 2, /no scripted profile named "sloppy"/],
    [['--skill', 'nosuch'], 3, /skill on main/],
  ] as [string[], number, RegExp][]
  // refusals in one process (test/helpers/cli-batch.ts)
  const refused = await expBatch(bad.map(([args]) => ({args: ['matrix', ...args, '-n', '1'], cwd: repo})))
  bad.forEach(([args, code, msg], i) => {
    const r = refused[i]!
    t.equal(r.code, code, `${args.join(' ')}: ${r.stderr}`)
    t.match(r.stderr, msg)
  })
  t.equal(await refsOf(repo), before, 'no ref moved, no record written')
  t.notOk(existsSync(path.join(repo, 'results', 'transfer-matrix.csv')))
  const m = await expJson<MatrixResult & {files: string[]}>(['matrix', "--skill-source", '*', '--executor', '*', ...TINY], {cwd: repo})
  t.same(m.executors, ['scripted:careless', 'scripted:literal', 'scripted:cautious'])
  t.equal(m.sources.length, 3)
  t.equal(m.cells.length, 9)
  t.ok(m.recorded > 0)
  // every cell is a recorded held-out evaluation of the source's evolved skill by the executor
  const ledger = JSON.parse((await exp(['ledger', '--kind', 'evaluation', '--json'], {cwd: repo})).stdout) as {id: string}[] | {records: {id: string}[]}
  const ids = new Set((Array.isArray(ledger) ? ledger : ledger.records).map(r => r.id))
  for (const c of m.cells) {
    t.ok(ids.has(c.evaluation), `${c.source} x ${c.executor}: ${c.evaluation} is on record`)
    t.equal(c.total, 24)
    t.ok(c.ci[0] <= c.rate && c.rate <= c.ci[1])
    t.equal(c.skill.commit, m.sources.find(s => s.spec === c.source)!.commit)
  }
  // at least one source learned something, in its own namespace; main did not move
  t.ok(m.sources.some(s => s.evolve.promoted > 0 && s.rules.length > 0), JSON.stringify(m.sources.map(s => [s.spec, s.evolve.promoted])))
  t.equal((await git(repo, 'rev-parse', 'HEAD')).trim(), main)
  for (const s of m.sources) {
    t.equal(s.namespace.mainRef, `refs/exp/matrix/${main.slice(0, 8)}/${s.namespace.slug}/main`)
    t.match(s.namespace.slug, /^scripted-[a-z]+-[0-9a-f]{8}$/)
    t.equal((await git(repo, 'rev-parse', s.namespace.mainRef)).trim(), s.commit)
    for (const r of s.rules) {
      t.ok((RULE_CLASSES as readonly string[]).includes(r.class), r.class)
      t.ok(r.reason.length > 20, r.reason)
      t.equal(r.effects.length, 3)
    }
  }
  // sources do not see each other's proposals: each proposal branch is under its source's namespace
  const branches = (await git(repo, 'for-each-ref', '--format=%(refname)', 'refs/heads/exp/proposal/')).trim().split('\n').filter(Boolean)
  for (const b of branches) t.match(b, new RegExp(`^refs/heads/exp/proposal/matrix/${main.slice(0, 8)}/scripted-[a-z]+-[0-9a-f]{8}/pr-`))
  t.match(m.h4.verdict, /^(supported|not supported)$/)
  t.ok(m.h4.evidence.length >= 4)
  // the files
  const csv = readFileSync(path.join(repo, 'results', 'transfer-matrix.csv'), 'utf8').trim().split('\n')
  t.equal(csv[0], 'source,executor,passed,episodes,success,ci_low,ci_high,skill_commit,skill_blob,evaluation,manifest')
  t.equal(csv.length, 1 + 3 + 9)
  const md = readFileSync(path.join(repo, 'results', 'transfer-matrix.md'), 'utf8')
  t.match(md, /\| skill from \\ executor \| scripted:careless \| scripted:literal \| scripted:cautious \|/)
  t.match(md, /## H4/)
  t.ok(existsSync(path.join(repo, 'results', 'transfer-rules.csv')))
  // a rerun: every evolve run finished, every episode recorded; the same numbers
  const again = await expJson<MatrixResult>(['matrix', ...TINY], {cwd: repo})
  t.equal(again.recorded, 0)
  t.same(again.cells.map(c => [c.evaluation, c.rate]), m.cells.map(c => [c.evaluation, c.rate]))
  t.same(again.sources.map(s => s.rules.map(r => r.class)), m.sources.map(s => s.rules.map(r => r.class)))
})

