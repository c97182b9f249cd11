import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp} from '../helpers/cli.js'
import {expBatch} from '../helpers/cli-batch.js'
import {exampleRepo} from '../helpers/evolve.js'
import {git} from '../helpers/repo.js'

// Found by an attack sweep: paths a flag names for exp to write (src/cli/out-path.ts).

async function snapshot(repo: string): Promise<string> {
  return `${await git(repo, 'for-each-ref')}${await git(repo, 'status', '--porcelain', '--ignored', '-uall')}`
}

for (const branch of ['master', 'main']) {
  // `exp report --out "$OUTDIR"` with OUTDIR unset was the current folder: it replaced the
  // user's own report.md at the top of the repository; `--out ' '` made a folder named " ".
  t.test(`on ${branch}: an empty or blank path to write is refused naming the flag; nothing is replaced`, async t => {
    const repo = await exampleRepo(t)
    if (branch === 'master') await git(repo, 'branch', '-m', 'main', 'master')
    fs.writeFileSync(path.join(repo, 'report.md'), '# my own report\n')
    const before = await snapshot(repo)
    const cases: [string[], RegExp][] = [
      [['report', '--out', ''], /^error: --out is empty: it names no folder$/m],
      [['report', '--out', ' '], /^error: --out is empty \(" "\): it names no folder$/m],
      [['compare', '--out', ''], /^error: --out is empty/m],
      [['gain', '--out', '\t'], /^error: --out is empty/m],
      [['matrix', '--out', ''], /^error: --out is empty/m],
      [['gate', '--base', branch, '--junit', ''], /^error: --junit is empty: it names no file$/m],
      [['gate', '--base', branch, '--comment', ' '], /^error: --comment is empty/m],
      [['run', 'train', '--events', '', '--lane', 't'], /^error: --events is empty/m],
    ]
    const results = await expBatch(cases.map(([args]) => ({args, cwd: repo, env: {EXP_LANE: ''}})))
    cases.forEach(([args, error], i) => {
      const r = results[i]!
      const name = `exp ${args.map(a => JSON.stringify(a)).join(' ')}`
      t.equal(r.code, 2, `${name}: ${r.stderr}`)
      t.match(r.stderr, error, name)
      t.match(r.stderr, /^hint: name the (folder|file) to write, e\.g\. --\S+ results/m, name)
      t.notMatch(r.stderr, /this is unexpected|report it/, name)
    })
    t.equal(fs.readFileSync(path.join(repo, 'report.md'), 'utf8'), '# my own report\n', "the user's report.md is untouched")
    t.notOk(fs.existsSync(path.join(repo, ' ')), 'no folder named " "')
    t.equal(await snapshot(repo), before, 'no ref moved, no file appeared')
    // from inside results/ the default folder is "." there, and still written
    fs.mkdirSync(path.join(repo, 'results'))
    const inside = await exp(['report'], {cwd: path.join(repo, 'results')})
    t.equal(inside.code, 0, inside.stderr)
    t.ok(fs.existsSync(path.join(repo, 'results', 'report.md')))
  })
}
