import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp} from '../helpers/cli.js'
import {expBatch} from '../helpers/cli-batch.js'
import {exampleRepo} from '../helpers/evolve.js'
import {git, tempDir} from '../helpers/repo.js'

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

// The "never in the git folder" check compared paths as written: a symbolic link outside the
// work tree (an alias of the repository's folder, a link to its refs) took report files into
// .git/refs/heads, and git warned "ignoring broken ref" on every command after.
t.test("a path that leads into the git folder through a symbolic link is refused as git's own", async t => {
  const repo = await exampleRepo(t)
  const links = tempDir(t)
  const alias = path.join(links, 'alias')
  fs.symlinkSync(repo, alias)
  fs.symlinkSync(path.join(repo, '.git', 'refs', 'heads'), path.join(links, 'heads'))
  fs.symlinkSync(path.join(repo, '.git'), path.join(links, 'gitdir'))
  const before = await snapshot(repo)
  const cases: [string[], RegExp][] = [
    [['report', '--out', path.join(alias, '.git/refs/heads')], /--out \S+alias\/\.git\/refs\/heads is git's own, in the repository's git folder \(\S+\), where it leads through a symbolic link \(\S+\/\.git\/refs\/heads\)/],
    [['report', '--out', path.join(links, 'heads')], /--out \S+\/heads is git's own/],
    [['report', '--out', path.join(links, 'heads', 'sub')], /--out \S+\/heads\/sub is git's own/],
    [['report', '--out', path.join(links, 'gitdir')], /--out \S+\/gitdir is git's own/],
    [['gate', '--base', 'main', '--junit', path.join(alias, '.git/config')], /--junit \S+\/\.git\/config is git's own/],
    [['gate', '--base', 'main', '--comment', path.join(links, 'gitdir', 'HEAD')], /--comment \S+\/gitdir\/HEAD is git's own/],
    [['run', 'train', '--lane', 't', '--events', path.join(alias, '.git/packed-refs')], /--events \S+\/\.git\/packed-refs is git's own/],
  ]
  const results = await expBatch(cases.map(([args]) => ({args, cwd: repo})))
  cases.forEach(([args, error], i) => {
    const r = results[i]!
    t.equal(r.code, 2, `exp ${args.join(' ')}: ${r.stderr}`)
    t.match(r.stderr, error)
    t.match(r.stderr, /^hint: choose a path in the work tree or outside the repository/m)
  })
  t.same(fs.readdirSync(path.join(repo, '.git', 'refs', 'heads')), ['main'], 'no report file among the branches')
  t.equal(await snapshot(repo), before, 'no ref moved, no file appeared')
  t.notMatch(await git(repo, 'branch'), /report/)
  // a folder of the work tree that is a link is refused the same when the path comes by an alias
  const outside = tempDir(t)
  fs.symlinkSync(outside, path.join(repo, 'results'))
  const linked = await exp(['report', '--out', path.join(alias, 'results')], {cwd: repo})
  t.equal(linked.code, 2, linked.stderr)
  t.match(linked.stderr, /results is a symbolic link \(to .*\), and exp writes its results only into real folders of the work tree/)
  t.same(fs.readdirSync(outside), [], 'nothing was written where the link points')
  fs.rmSync(path.join(repo, 'results'))
  // the repository through its alias is still the repository: its work tree takes the report
  const ok = await exp(['report', '--out', path.join(alias, 'out')], {cwd: repo})
  t.equal(ok.code, 0, ok.stderr)
  t.ok(fs.existsSync(path.join(repo, 'out', 'report.md')))
})

// A folder where a result file goes (out/report.html/): `exp report` had already replaced
// out/report.md, then failed "EISDIR … unexpected"; `exp compare` failed only once the whole
// compare had run. Every name is checked before the work, and before the first file.
t.test('a folder at the name of a result file is refused before the work, naming the path; nothing is replaced', async t => {
  const repo = await exampleRepo(t)
  const cases: [string[], string][] = [
    [['report', '--out', 'out'], 'report.html'],
    [['report'], 'report.md'],
    [['compare', '--out', 'out'], 'compare.csv'],
    [['gain', '--out', 'out'], 'gain.md'],
    [['matrix', '--out', 'out'], 'transfer-rules.csv'],
  ]
  for (const [args, name] of cases) {
    const dir = args.includes('--out') ? 'out' : 'results'
    fs.rmSync(path.join(repo, dir), {recursive: true, force: true})
    fs.mkdirSync(path.join(repo, dir, name), {recursive: true})
    for (const f of ['report.md', 'compare.json', 'gain.json', 'transfer-matrix.csv']) if (f !== name) fs.writeFileSync(path.join(repo, dir, f), 'old\n')
    const refs = await git(repo, 'for-each-ref')
    const started = Date.now()
    const r = await exp(args, {cwd: repo})
    t.equal(r.code, 2, `exp ${args.join(' ')}: ${r.stderr}`)
    t.match(r.stderr, new RegExp(`^error: --out ${dir}: ${dir}/${name.replace('.', '\\.')} is a folder, and exp writes its result file ${name.replace('.', '\\.')} there$`, 'm'))
    t.match(r.stderr, new RegExp(`^hint: move or remove the folder ${dir}/${name.replace('.', '\\.')}, or choose another --out$`, 'm'))
    t.notMatch(r.stderr, /this is unexpected|EISDIR/)
    for (const f of ['report.md', 'compare.json', 'gain.json', 'transfer-matrix.csv']) if (f !== name) t.equal(fs.readFileSync(path.join(repo, dir, f), 'utf8'), 'old\n', `${args[0]}: ${f} is not replaced`)
    t.equal(await git(repo, 'for-each-ref'), refs, `${args[0]}: nothing ran, no lane was written`)
    t.ok(Date.now() - started < 20_000, `${args[0]}: refused before the work (${Date.now() - started} ms)`)
  }
})
