import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {execFileSync, spawn} from 'node:child_process'
import os from 'node:os'
import {exp, expJson, ROOT, BIN} from '../helpers/cli.js'
import {GIT_ENV, git, node} from '../helpers/repo.js'
import {quadFixture} from '../helpers/contracts.js'
import {detectIsolation} from '../../src/agents/command/sandbox.js'

// (the attacks on records other lanes write are in attacks-records.test.ts, the research
// agent's moves in attacks-research.test.ts: one file of all three was the suite's longest)

/**
 * Attacks by an attempt's author or agent on a contract whose editable scope holds code the
 * evaluator runs (solver.py, imported by the protected eval.py): that code runs with the
 * evaluator, so what the evaluator is given is what it can reach. It must never be given the
 * held-out data on dev, and nothing it prints or writes may carry the key into a record.
 */
const EVAL = `import json, os, sys
split = sys.argv[1] if len(sys.argv) > 1 else "dev"
import solver
p = json.load(open("params.json"))
score = -((p["x"] - 5) ** 2) - (p["y"] - 2) ** 2 + solver.bonus()
json.dump({"score": score}, open("metrics.json", "w"))
`

/** An attempt's solver that looks for every secret it can reach and writes what it found everywhere it can. */
const HOSTILE = `import json, os, glob, atexit, sys
def bonus():
    found = {}
    d = os.environ.get("EXP_PRIVATE_DIR")
    if d:
        for f in glob.glob(os.path.join(d, "**", "*"), recursive=True):
            if os.path.isfile(f): found["private:" + f] = open(f).read()
    gitdir = open(".git").read().split("gitdir:")[1].strip()
    common = os.path.normpath(os.path.join(gitdir, "..", ".."))
    key = os.path.join(common, "exp", "holdout.key")
    if os.path.exists(key): found["key"] = open(key).read().strip()
    print(json.dumps(found))
    print(json.dumps(found), file=sys.stderr)
    def overwrite():
        json.dump({"score": 1000, "found": found}, open("metrics.json", "w"))
    atexit.register(overwrite)
    return 0
`

/** An attempt's solver that writes where it should not: a lane ref, the cache, the user's work tree. */
const PLANTER = `import json, os
def bonus():
    gitdir = open(".git").read().split("gitdir:")[1].strip()
    common = os.path.normpath(os.path.join(gitdir, "..", ".."))
    for p in [os.path.join(common, "refs", "research", "lanes", "evil"), os.path.join(common, "exp", "PLANTED"), os.path.join(os.path.dirname(common), "PLANTED.txt")]:
        try:
            os.makedirs(os.path.dirname(p), exist_ok=True)
            open(p, "w").write("0" * 40 + "\\n")
        except Exception:
            pass
    return 0
`

async function codeContract(t: {teardown(fn: () => void): void}): Promise<string> {
  const repo = await quadFixture(t)
  fs.writeFileSync(path.join(repo, 'eval.py'), EVAL)
  fs.writeFileSync(path.join(repo, 'solver.py'), 'def bonus():\n    return 0\n')
  const c = path.join(repo, '.research/contracts/quad.yaml')
  fs.writeFileSync(c, fs.readFileSync(c, 'utf8').replace('  - params.json\n', '  - params.json\n  - solver.py\n').replace(/repetitions: 2/g, 'repetitions: 1'))
  await git(repo, 'add', '-A')
  await git(repo, 'commit', '-qm', 'an evaluator that runs editable code')
  return repo
}

const allObjects = (repo: string) => execFileSync('git', ['cat-file', '--batch-all-objects', '--batch'], {cwd: repo, env: GIT_ENV, maxBuffer: 1 << 28}).toString('latin1')

t.test('code of an attempt run by the dev evaluator sees no held-out data, and the key it reads reaches no record', async t => {
  const repo = await codeContract(t)
  const key = fs.readFileSync(path.join(repo, '.git/exp/holdout.key'), 'utf8').trim()
  t.ok(key.length >= 32, 'the fixture has a key file')
  const a = await expJson<{id: string; path: string}>(['attempt', 'new', 'quad'], {cwd: repo})
  fs.writeFileSync(path.join(a.path, 'solver.py'), HOSTILE)
  const dev = await expJson<{verdicts: {body: {metric?: {value: number}}}[]}>(['attempt', 'eval', a.id], {cwd: repo})
  // the limit docs/trust.md states: code the evaluator runs can write the metrics file
  t.equal(dev.verdicts[0]!.body.metric!.value, 1000)
  const objects = allObjects(repo)
  t.equal(objects.indexOf('TOP-SECRET-HOLDOUT-TARGET'), -1, 'the dev run was not given the held-out data')
  t.equal(objects.indexOf(key), -1, 'the key is in no object: not in the metrics, not in the diagnostics')
  const observations = await expJson<{body: {metrics?: {found?: Record<string, string>}}}[]>(['ledger', '--kind', 'observation'], {cwd: repo})
  const found = observations.map(o => o.body.metrics?.found).find(f => f !== undefined)
  t.ok(found, 'the hostile code ran and reported what it found')
  if (!found) return
  if (ISOLATED) t.notOk('key' in found, 'isolated: the key file is not there to read (the git dir is empty to it)')
  else t.equal(found.key, '[redacted]', 'unisolated: what it found was recorded redacted')
})

const ISOLATED = (await detectIsolation()) !== 'none'

t.test('code of an attempt run by the evaluator writes neither a lane, nor the cache, nor the user\'s work tree', {skip: !ISOLATED && 'no mount namespaces or bwrap on this machine (docs/trust.md states the limit)'}, async t => {
  const repo = await codeContract(t)
  const a = await expJson<{id: string; path: string}>(['attempt', 'new', 'quad'], {cwd: repo})
  fs.writeFileSync(path.join(a.path, 'solver.py'), PLANTER)
  const dev = await exp(['attempt', 'eval', a.id, '--json'], {cwd: repo})
  t.equal(dev.code, 0, dev.stderr)
  t.notOk(fs.existsSync(path.join(repo, 'PLANTED.txt')), 'nothing planted in the work tree')
  t.notOk(fs.existsSync(path.join(repo, '.git', 'refs', 'research', 'lanes', 'evil')), 'no lane ref written')
  t.notOk(fs.existsSync(path.join(repo, '.git', 'exp', 'PLANTED')), 'nothing written under .git/exp')
  t.notMatch(await git(repo, 'for-each-ref'), /evil/, 'git knows no such ref')
})

// Found by red-teaming: a relative program (`./eval.sh`) was looked for from exp's own folder,
// not the checkout it runs in: from a subfolder (or with -C) it was "not found", and the
// command ran without the sandbox — the attempt's code read the key on a dev run.
t.test('a contract command ./eval.sh run from a subfolder is isolated as from the top', {skip: !ISOLATED && 'no mount namespaces or bwrap on this machine'}, async t => {
  const repo = await codeContract(t)
  fs.writeFileSync(path.join(repo, 'eval.sh'), '#!/bin/sh\nexec python3 eval.py "$@"\n', {mode: 0o755})
  const c = path.join(repo, '.research/contracts/quad.yaml')
  fs.writeFileSync(c, fs.readFileSync(c, 'utf8').replace('command: python3 eval.py dev', 'command: ./eval.sh dev').replace('  - eval.py\n', '  - eval.py\n  - eval.sh\n'))
  fs.mkdirSync(path.join(repo, 'sub'))
  fs.writeFileSync(path.join(repo, 'sub', 'README'), 'a subfolder\n')
  await git(repo, 'add', '-A')
  await git(repo, 'commit', '-qm', 'a relative evaluator program')
  const sub = path.join(repo, 'sub')
  const a = await expJson<{id: string; path: string}>(['attempt', 'new', 'quad'], {cwd: sub})
  fs.writeFileSync(path.join(a.path, 'solver.py'), HOSTILE)
  const dev = await exp(['attempt', 'eval', a.id], {cwd: sub})
  t.equal(dev.code, 0, dev.stderr)
  t.notMatch(dev.stderr, /not isolated/)
  const observations = await expJson<{body: {metrics?: {found?: Record<string, string>}}}[]>(['ledger', '--kind', 'observation'], {cwd: repo})
  const found = observations.map(o => o.body.metrics?.found).find(f => f !== undefined)
  t.ok(found, 'the hostile code ran and reported what it found')
  t.notOk(found && 'key' in found, 'the key file is not there to read')
})

// Found by red-teaming: in the sandbox only the repository and the scratch folders were
// hidden; the rest of the file system was writable (the user's ~/.gitconfig: a filter planted
// there ran outside the sandbox at exp's next checkout), and as root in the namespace the
// program kept its capabilities: it could unmount the tmpfs that hides the repository.
t.test('code the evaluator runs can neither unmount what hides the repository nor write outside its checkout, HOME and TMPDIR', {skip: !ISOLATED && 'no mount namespaces or bwrap on this machine'}, async t => {
  const repo = await codeContract(t)
  const outside = path.join(ROOT, `.exp-sandbox-probe-${process.pid}`)
  t.teardown(() => fs.rmSync(outside, {force: true}))
  const a = await expJson<{id: string; path: string}>(['attempt', 'new', 'quad'], {cwd: repo})
  fs.writeFileSync(path.join(a.path, 'solver.py'), `import json, os, subprocess, atexit
def bonus():
    gitdir = open(".git").read().split("gitdir:")[1].strip()
    common = os.path.normpath(os.path.join(gitdir, "..", ".."))
    tried = {}
    # every folder above the git dir: one of them is the tmpfs that hides it
    where, unmounted = common, []
    while where != "/":
        if subprocess.run(["umount", "-l", where], capture_output=True).returncode == 0:
            unmounted.append(where)
        where = os.path.dirname(where)
    tried["unmounted"] = unmounted
    tried["key"] = os.path.exists(os.path.join(common, "exp", "holdout.key"))
    for name, p in [("outside", ${JSON.stringify(outside)}), ("home", os.path.join(os.environ["HOME"], "x")), ("tmpdir", os.path.join(os.environ["TMPDIR"], "x")), ("checkout", "written.txt")]:
        try:
            open(p, "w").write("x")
            tried[name] = "written"
        except OSError as e:
            tried[name] = e.strerror
    atexit.register(lambda: json.dump({"score": 0, "tried": tried}, open("metrics.json", "w")))
    return 0
`)
  const dev = await exp(['attempt', 'eval', a.id], {cwd: repo})
  t.equal(dev.code, 0, dev.stderr)
  const observations = await expJson<{body: {metrics?: {tried?: Record<string, unknown>}}}[]>(['ledger', '--kind', 'observation'], {cwd: repo})
  const tried = observations.map(o => o.body.metrics?.tried).find(f => f !== undefined)
  t.ok(tried, 'the code ran')
  t.match(tried, {key: false, home: 'written', tmpdir: 'written', checkout: 'written'}, JSON.stringify(tried))
  t.same(tried?.unmounted, [], 'nothing that hides the repository can be unmounted')
  t.notOk(fs.existsSync(outside), `nothing written outside (${String(tried?.outside)})`)
})

t.test('code of an attempt run by the held-out evaluator: the key it reads reaches no record, public or private', async t => {
  const repo = await codeContract(t)
  const key = fs.readFileSync(path.join(repo, '.git/exp/holdout.key'), 'utf8').trim()
  const a = await expJson<{id: string; path: string}>(['attempt', 'new', 'quad'], {cwd: repo})
  fs.writeFileSync(path.join(a.path, 'solver.py'), HOSTILE)
  const r = await expJson<{verdicts: unknown[]}>(['attempt', 'eval', a.id, '--split', 'holdout'], {cwd: repo})
  t.equal(r.verdicts.length, 1)
  t.equal(allObjects(repo).indexOf(key), -1)
  // found by an attack sweep: what the evaluator wrote into the metrics file beside the score —
  // held-out data among it — reached the public observation; a held-out one keeps the contract's
  // metrics, as numbers, and nothing else
  const pub = await expJson<{body: {metrics?: Record<string, unknown>; split: string}}[]>(['ledger', '--kind', 'observation', '--no-private', '--json'], {cwd: repo})
  const held = pub.filter(o => o.body.split === 'holdout')
  t.ok(held.length, 'a held-out observation is public')
  for (const o of held) t.same(Object.keys(o.body.metrics ?? {}), ['score'], 'only the metric')
  t.notOk(JSON.stringify(pub).includes('TOP-SECRET-HOLDOUT-TARGET'), 'no held-out data in a public record')
})

t.test('a metrics file committed by the attempt is outside its scope; one left in the checkout is deleted before the run', async t => {
  const repo = await quadFixture(t)
  const a = await expJson<{id: string; path: string}>(['attempt', 'new', 'quad'], {cwd: repo})
  fs.writeFileSync(path.join(a.path, 'metrics.json'), '{"score": 1000}\n')
  const r = await exp(['attempt', 'eval', a.id, '--json'], {cwd: repo})
  t.equal(r.code, 6)
  t.match(JSON.parse(r.stdout).error.data.violations, ['outside the editable scope: metrics.json'])
})

// Found by red-teaming: a folder committed where the metrics file goes (an editable **/*.txt
// allows metrics.json/a.txt) made the removal before the run throw EISDIR, "unexpected", and
// every rerun of the attempt fail the same way.
t.test('a folder the attempt committed at the metrics path is removed before the run like a file', async t => {
  const repo = await quadFixture(t)
  const c = path.join(repo, '.research/contracts/quad.yaml')
  fs.writeFileSync(c, fs.readFileSync(c, 'utf8').replace('  - params.json\n', '  - params.json\n  - "**/*.txt"\n'))
  await git(repo, 'commit', '-qam', 'text files are editable')
  const a = await expJson<{id: string; path: string}>(['attempt', 'new', 'quad'], {cwd: repo})
  fs.mkdirSync(path.join(a.path, 'metrics.json'))
  fs.writeFileSync(path.join(a.path, 'metrics.json', 'a.txt'), 'hi\n')
  const r = await exp(['attempt', 'eval', a.id, '--json'], {cwd: repo})
  t.equal(r.code, 0, r.stderr)
  t.notMatch(r.stderr, /unexpected|EISDIR/)
  t.match(JSON.parse(r.stdout), {verdicts: [{body: {valid: true}}]}, 'the evaluator wrote its metrics where the folder was')
})

t.test('a contract edited by the attempt does not judge it: the base\'s does, and the edit is a violation', async t => {
  const repo = await quadFixture(t)
  const a = await expJson<{id: string; path: string}>(['attempt', 'new', 'quad'], {cwd: repo})
  const c = path.join(a.path, '.research/contracts/quad.yaml')
  fs.writeFileSync(c, fs.readFileSync(c, 'utf8').replace('  - params.json\n', '  - params.json\n  - eval.py\n').replace('  - eval.py\n  - data', '  - data'))
  fs.writeFileSync(path.join(a.path, 'eval.py'), 'import json\njson.dump({"score": 1000}, open("metrics.json", "w"))\n')
  const r = await exp(['attempt', 'eval', a.id, '--json'], {cwd: repo})
  t.equal(r.code, 6)
  t.match(JSON.parse(r.stdout).error.data.violations, ['protected path changed: .research/contracts/quad.yaml', 'protected path changed: eval.py'])
})

t.test("an attempt record another lane wrote naming the main branch: neither eval nor promote commits the user's edits onto main or deletes it", async t => {
  const repo = await quadFixture(t)
  const a = await expJson<{id: string}>(['attempt', 'new', 'quad'], {cwd: repo})
  const real = (await expJson<{record: {body: Record<string, unknown>}}>(['inspect', a.id, '--json'], {cwd: repo})).record.body
  const main = (await git(repo, 'rev-parse', 'main')).trim()
  // the user's own uncommitted edit in main's checkout
  fs.writeFileSync(path.join(repo, 'params.json'), '{"x": 0, "y": 0}\n')
  const forgeries = [
    {...real, branch: 'main', base: {commit: main, branch: 'main'}},
    {...real, branch: 'main', ordinal: 2, base: {commit: main, branch: 'main'}, head: {commit: main}},
  ]
  for (const [i, body] of forgeries.entries()) {
    const f = await exp(['append', 'attempt', '-', '--lane', 'mallory', '--key', `forged/${i}`], {cwd: repo, input: JSON.stringify(body)})
    t.equal(f.code, 0, f.stderr)
    const id = f.stdout.trim()
    for (const cmd of [['attempt', 'eval', id], ['attempt', 'promote', id]]) {
      const r = await exp(cmd, {cwd: repo})
      t.equal(r.code, 5, `${cmd.slice(0, 2).join(' ')} refuses it: ${r.stderr}`)
      t.match(r.stderr, /did not write it/)
    }
  }
  t.equal((await git(repo, 'rev-parse', 'main')).trim(), main, 'main is where it was')
  t.match(await git(repo, 'status', '--porcelain'), /^ M params\.json$/m, "the user's edit is still theirs, uncommitted")
  t.equal((await exp(['attempt', 'list', '--json'], {cwd: repo})).code, 0)
})

t.test("whoever edits an attempt's work tree and replaces its .git: exp commits nothing onto main and runs no filter of theirs", async t => {
  const repo = await quadFixture(t)
  const main = (await git(repo, 'rev-parse', 'main')).trim()
  // (a) .git names the main repository's git dir: a commit made there lands on main
  const a = await expJson<{id: string; path: string}>(['attempt', 'new', 'quad'], {cwd: repo})
  fs.writeFileSync(path.join(a.path, '.git'), `gitdir: ${path.join(repo, '.git')}\n`)
  fs.writeFileSync(path.join(a.path, 'eval.py'), 'print("judged by the attempt")\n')
  const ra = await exp(['attempt', 'eval', a.id], {cwd: repo})
  t.not(ra.code, 0, 'the attempt that changed eval.py is not evaluated as clean')
  t.equal((await git(repo, 'rev-parse', 'main')).trim(), main, 'main did not move')
  t.equal(await git(repo, 'status', '--porcelain'), '', "main's work tree and index are untouched")
  t.match(await git(repo, 'log', '-1', '--format=%s', `refs/heads/${(await expJson<{record: {body: {branch: string}}}>(['inspect', a.id, '--json'], {cwd: repo})).record.body.branch}`), /attempt/, "the edit went to the attempt's own branch")
  // (b) .git is a repository of the editor's own, whose config runs a filter as this user
  const marks = fs.mkdtempSync(path.join(path.dirname(repo), 'marks-'))
  const b = await expJson<{id: string; path: string}>(['attempt', 'new', 'quad'], {cwd: repo})
  fs.rmSync(path.join(b.path, '.git'))
  await git(b.path, 'init', '-q')
  await git(b.path, 'config', 'filter.x.clean', `sh -c 'touch ${path.join(marks, 'clean')}; cat'`)
  await git(b.path, 'config', 'filter.x.smudge', `sh -c 'touch ${path.join(marks, 'smudge')}; cat'`)
  fs.writeFileSync(path.join(b.path, '.git/info/attributes'), '* filter=x\n')
  fs.writeFileSync(path.join(b.path, 'params.json'), '{"x": 4, "y": 2}\n')
  for (const cmd of [['attempt', 'eval', b.id], ['attempt', 'promote', b.id]]) await exp(cmd, {cwd: repo})
  t.same(fs.readdirSync(marks), [], 'no filter of the planted repository ran')
  // (its promotion, a better params.json, may have moved main: as it should)
  const after = (await git(repo, 'rev-parse', 'main')).trim()
  // (c) a folder git does not know as a work tree of this repository is refused by name
  const c = await expJson<{id: string; path: string}>(['attempt', 'new', 'quad'], {cwd: repo})
  fs.rmSync(path.join(c.path, '.git'))
  fs.writeFileSync(path.join(c.path, '.git'), 'gitdir: /nonexistent\n')
  for (const w of fs.readdirSync(path.join(repo, '.git/worktrees'))) {
    const f = path.join(repo, '.git/worktrees', w, 'gitdir')
    if (fs.readFileSync(f, 'utf8').includes(c.id)) fs.writeFileSync(f, '/elsewhere/.git\n')
  }
  fs.writeFileSync(path.join(c.path, 'params.json'), '{"x": 4, "y": 2}\n')
  const rc = await exp(['attempt', 'eval', c.id], {cwd: repo})
  t.equal(rc.code, 4, rc.stderr)
  t.match(rc.stderr, /cannot commit the work tree at .*: git names no work tree of this repository there/)
  t.equal((await git(repo, 'rev-parse', 'main')).trim(), after, 'main did not move')
})

t.test('where no namespace can be made, an evaluation says the evaluator is not isolated, once', async t => {
  const repo = await quadFixture(t)
  // a PATH with the interpreter, git and node only: neither unshare nor bwrap can be found
  const bin = fs.mkdtempSync(path.join(repo, '..', 'exp-bin-'))
  t.teardown(() => fs.rmSync(bin, {recursive: true, force: true}))
  // (the interpreter itself, not a launcher such as a pyenv shim, which needs more of PATH)
  fs.symlinkSync(execFileSync('python3', ['-c', 'import sys; print(sys.executable)']).toString().trim(), path.join(bin, 'python3'))
  for (const p of ['git', 'node']) fs.symlinkSync(execFileSync('sh', ['-c', `command -v ${p}`]).toString().trim(), path.join(bin, p))
  const a = await expJson<{id: string; path: string}>(['attempt', 'new', 'quad'], {cwd: repo})
  const r = await exp(['attempt', 'eval', a.id], {cwd: repo, env: {PATH: bin}})
  t.equal(r.code, 0, r.stderr)
  t.equal(r.stderr.match(/warning: evaluator commands are not isolated on this machine/g)?.length, 1, r.stderr)
  if (!ISOLATED) return
  const isolated = await exp(['attempt', 'eval', a.id, '--split', 'holdout'], {cwd: repo})
  t.equal(isolated.code, 0, isolated.stderr)
  t.notMatch(isolated.stderr, /not isolated/, 'with unshare on PATH: isolated, no warning')
})

t.test("files an attempt plants where a relative core.hooksPath points are never run as hooks by exp's own git commands", async t => {
  const repo = await quadFixture(t)
  // a repository whose hooks live in the work tree (husky and friends set this)
  await git(repo, 'config', 'core.hooksPath', '.hooks')
  const marks = fs.mkdtempSync(path.join(path.dirname(repo), 'marks-'))
  const a = await expJson<{id: string; path: string}>(['attempt', 'new', 'quad'], {cwd: repo})
  fs.writeFileSync(path.join(a.path, 'params.json'), '{"x": 4, "y": 2}\n')
  fs.mkdirSync(path.join(a.path, '.hooks'))
  for (const hook of ['pre-commit', 'post-commit', 'post-index-change', 'post-checkout', 'post-merge', 'reference-transaction']) {
    fs.writeFileSync(path.join(a.path, '.hooks', hook), `#!/bin/sh\ntouch ${JSON.stringify(path.join(marks, hook))}\n`, {mode: 0o755})
  }
  const r = await exp(['attempt', 'eval', a.id], {cwd: repo})
  t.match(r.stderr + r.stdout, /\.hooks/, 'the planted files are named (outside the editable scope)')
  t.same(fs.readdirSync(marks), [], 'no planted hook ran')
})

t.test('a .gitattributes or .gitmodules file in an editable folder is a boundary violation: it changes how protected files check out', async t => {
  const repo = await quadFixture(t)
  const c = path.join(repo, '.research/contracts/quad.yaml')
  fs.writeFileSync(c, fs.readFileSync(c, 'utf8').replace('  - params.json\n', '  - params.json\n  - conf/**\n'))
  await git(repo, 'add', '-A')
  await git(repo, 'commit', '-qm', 'an editable folder')
  const a = await expJson<{id: string; path: string}>(['attempt', 'new', 'quad'], {cwd: repo})
  fs.mkdirSync(path.join(a.path, 'conf'))
  fs.writeFileSync(path.join(a.path, 'conf', '.gitattributes'), '* text eol=crlf ident\n')
  const r = await exp(['attempt', 'eval', a.id], {cwd: repo})
  t.not(r.code, 0)
  t.match(r.stderr, /not a regular file \(a symbolic link, a submodule, or \.gitattributes\/\.gitmodules\): conf\/\.gitattributes/)
  // attributes its own files cannot be committed under: git's words, not "unexpected"
  fs.writeFileSync(path.join(a.path, 'conf', '.gitattributes'), '* working-tree-encoding=UTF-16\n')
  const w = await exp(['attempt', 'eval', a.id], {cwd: repo})
  t.equal(w.code, 4)
  t.match(w.stderr, /error: cannot commit the work tree at .*: .*BOM/)
  t.notMatch(w.stderr, /unexpected/)
  const {checkScope} = await import('../../src/gate/scope.js')
  for (const p of ['conf/.gitattributes', 'conf/.GitAttributes', '.gitmodules', 'a/b/.gitmodules']) t.same(checkScope([p], {editable_scope: ['**']}).links, [p], p)
  t.same(checkScope(['conf/x.gitattributes', 'conf/.gitignore'], {editable_scope: ['**']}).links, [], 'other files are content')
})

// found by an attack sweep of the gate: a module `pkg/a.py` beside a namespace folder `pkg/a/`
// that holds the protected `pkg/*/scorer.py` runs in its place; an attempt is held to the same
t.test("an attempt's module beside a folder holding a protected file is a boundary violation, one beside a folder of its own is not", async t => {
  const repo = await quadFixture(t)
  fs.mkdirSync(path.join(repo, 'pkg', 'a'), {recursive: true})
  fs.writeFileSync(path.join(repo, 'pkg', 'a', 'scorer.py'), 'def score(x):\n    return x\n')
  const c = path.join(repo, '.research/contracts/quad.yaml')
  fs.writeFileSync(c, fs.readFileSync(c, 'utf8').replace('  - params.json\n', '  - params.json\n  - pkg/**\n').replace('  - eval.py\n', '  - eval.py\n  - pkg/*/scorer.py\n').replace(/repetitions: 2/g, 'repetitions: 1'))
  await git(repo, 'add', '-A')
  await git(repo, 'commit', '-qm', 'a scorer in a namespace folder')
  const a = await expJson<{id: string; path: string}>(['attempt', 'new', 'quad'], {cwd: repo})
  fs.writeFileSync(path.join(a.path, 'pkg', 'a.py'), 'def score(x):\n    return 1000\n')
  const r = await exp(['attempt', 'eval', a.id, '--json'], {cwd: repo})
  t.equal(r.code, 6, r.stderr)
  t.match(JSON.parse(r.stdout).error.data.violations, ['protected path changed: pkg/a.py'])
  const b = await expJson<{id: string; path: string}>(['attempt', 'new', 'quad'], {cwd: repo})
  fs.mkdirSync(path.join(b.path, 'pkg', 'b'))
  fs.writeFileSync(path.join(b.path, 'pkg', 'b', 'util.py'), '')
  fs.writeFileSync(path.join(b.path, 'pkg', 'b.py'), '')
  const ok = await exp(['attempt', 'eval', b.id, '--json'], {cwd: repo})
  t.equal(ok.code, 0, ok.stderr)
})

// Found by red-teaming the evaluator's authority: the metrics were copied (redacted) by
// assignment, so a top-level "__proto__" set the copy's prototype; the verdict read score 100
// through it while the observation recorded `metrics: {}`, and exp merged a promotion its own
// fsck then called forged.
t.test('metrics {"__proto__": {"score": 100}}: no score is read through a prototype, nothing is promoted', async t => {
  const repo = await codeContract(t)
  const a = await expJson<{id: string; path: string}>(['attempt', 'new', 'quad'], {cwd: repo})
  fs.writeFileSync(path.join(a.path, 'solver.py'), `import atexit
def bonus():
    atexit.register(lambda: open("metrics.json", "w").write('{"__proto__": {"score": 100}}'))
    return 0
`)
  // (no valid verdict: the evaluation ends needs_retry, exit 6, its result printed all the same)
  const ev = await exp(['attempt', 'eval', a.id, '--json'], {cwd: repo})
  t.equal(ev.code, 6, ev.stderr)
  const r = JSON.parse(ev.stdout) as {verdicts: {body: {valid: boolean; outcome: string; metric?: {value: number}}}[]}
  t.notOk(r.verdicts.some(v => v.body.metric?.value === 100), JSON.stringify(r.verdicts))
  t.ok(r.verdicts.length && r.verdicts.every(v => !v.body.valid), 'the metrics file has no number "score": no valid verdict')
  const p = await exp(['attempt', 'promote', a.id, '--json'], {cwd: repo})
  t.notMatch(p.stdout, /"verdict": "accept"/)
  const fsck = await exp(['fsck'], {cwd: repo})
  t.equal(fsck.code, 0, fsck.stdout)
})

// Found by red-teaming: exp had no handling of an interrupt, so Ctrl-C during a held-out
// evaluation left the unsealed data in clear under /tmp (51 such folders on the machine) and
// the evaluator running (it runs detached: the terminal's Ctrl-C does not reach it).
t.test('an interrupted held-out evaluation removes the unsealed data and stops the evaluator; exp gc removes what a SIGKILL left', async t => {
  const repo = await codeContract(t)
  const a = await expJson<{id: string; path: string}>(['attempt', 'new', 'quad'], {cwd: repo})
  fs.writeFileSync(path.join(a.path, 'solver.py'), `import os, time
def bonus():
    # written whole, then renamed: the test reads the folder's name as soon as the file is there
    with open("started.tmp", "w") as f:
        f.write(os.environ.get("EXP_PRIVATE_DIR", ""))
    os.replace("started.tmp", "started.txt")
    time.sleep(4)
    open("late.txt", "w").write("still running")
    return 0
`)
  await git(a.path, 'add', 'solver.py')
  await git(a.path, 'commit', '-qm', 'a slow solver')
  const child = spawn(...node([BIN, 'attempt', 'eval', a.id, '--split', 'holdout']), {cwd: repo, env: GIT_ENV, stdio: 'ignore'})
  const closed = new Promise<number | null>(r => child.on('close', code => r(code)))
  const worktrees = path.join(repo, '.git/exp/worktrees')
  const started = async () => {
    for (let i = 0; i < 300; i++) {
      const hit = fs.existsSync(worktrees) && fs.readdirSync(worktrees).map(w => path.join(worktrees, w, 'started.txt')).find(f => fs.existsSync(f))
      if (hit) return hit
      await new Promise(r => setTimeout(r, 50))
    }
    return undefined
  }
  const marker = await started()
  t.ok(marker, 'the evaluator started')
  const privateDir = marker ? fs.readFileSync(marker, 'utf8') : ''
  child.kill('SIGINT')
  t.equal(await closed, 130, 'exp exits as an interrupt')
  await new Promise(r => setTimeout(r, 5000))
  t.notOk(marker && fs.existsSync(path.join(path.dirname(marker), 'late.txt')), 'the evaluator was stopped with exp')
  const mine = fs.readdirSync(os.tmpdir()).filter(f => f.startsWith(`exp-private-${child.pid}-`))
  t.same(mine, [], 'no unsealed folder of that exp is left')
  t.ok(privateDir && !fs.existsSync(privateDir), `the folder the evaluator was given is gone (${privateDir})`)
  // a folder a SIGKILLed exp left (a pid that is gone): exp gc removes it
  const left = path.join(os.tmpdir(), 'exp-private-999999-abcdef')
  fs.mkdirSync(path.join(left, 'data'), {recursive: true})
  fs.writeFileSync(path.join(left, 'data', 'secret.json'), '{"target": 7}')
  t.teardown(() => fs.rmSync(left, {recursive: true, force: true}))
  const gc = await exp(['gc'], {cwd: repo})
  t.equal(gc.code, 0, gc.stderr)
  t.notOk(fs.existsSync(left), 'exp gc removed the unsealed folder of a process that is gone')
})
