import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {execFileSync, spawn} from 'node:child_process'
import os from 'node:os'
import {exp, expJson, ROOT, BIN} from '../helpers/cli.js'
import {GIT_ENV, git, makeRepo, node, tempDir} from '../helpers/repo.js'
import {quadFixture} from '../helpers/contracts.js'
import {detectIsolation} from '../../src/agents/command/sandbox.js'
import {prepare, recordDigest, schemaTag, type Kind, type RecordDraft} from '../../src/records/index.js'

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

t.test('records forged on a lane — a verdict that claims a score never measured, an accept never given — fool neither attempt list nor fsck', async t => {
  const repo = await quadFixture(t)
  const a = await expJson<{id: string; path: string}>(['attempt', 'new', 'quad'], {cwd: repo})
  fs.writeFileSync(path.join(a.path, 'params.json'), '{"x": -3, "y": 2}\n')
  const dev = await expJson<{verdicts: {id: string; body: Record<string, unknown> & {metric: {value: number}}}[]; summary: {mean: number}}>(['attempt', 'eval', a.id], {cwd: repo})
  const real = dev.verdicts[0]!
  const forged = {...real.body, outcome: 'positive', metric: {...real.body.metric, value: 1000}, baseline: {value: -5, gain: 1005}}
  const v = await exp(['append', 'verdict', '-', '--lane', 'evil', '--key', 'forged/verdict'], {cwd: repo, input: JSON.stringify({body: forged, cites: [real.body.observation]})})
  t.equal(v.code, 0, v.stderr)
  const contract = (real.body.contract as {digest: string}).digest
  const decision = {proposal: a.id, verdict: 'accept', policy: {version: 'contract@2', digest: contract}, evaluations: [v.stdout.trim()], checks: [], reasons: ['trust me'], regressions: []}
  const d = await exp(['append', 'decision', '-', '--lane', 'evil'], {cwd: repo, input: JSON.stringify({body: decision, cites: [a.id]})})
  t.equal(d.code, 0, d.stderr)
  const list = await exp(['attempt', 'list', '--json'], {cwd: repo})
  t.equal(list.code, 0, list.stderr)
  const view = (JSON.parse(list.stdout) as {id: string; state: string; splits: {dev?: {mean?: number}}}[]).find(x => x.id === a.id)!
  t.equal(view.state, 'evaluated', 'not accepted on a forged decision')
  t.equal(view.splits.dev!.mean, dev.summary.mean, 'the measured mean, not the forged one')
  t.match(list.stderr, /2 evaluation\(s\) or decision\(s\) do not stand/)
  const fsck = await exp(['fsck', '--json'], {cwd: repo})
  t.not(fsck.code, 0)
  t.match(fsck.stdout, /inconsistent_evaluation/)
  t.match(fsck.stdout, /forged_decision/)
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

t.test("a baseline another lane planted under the baseline's public keys (scoring -10) makes no attempt better: a lane reuses and rests on its own measurements", async t => {
  const repo = await quadFixture(t)
  const main = (await git(repo, 'rev-parse', 'main')).trim()
  // the attacker measures the baseline at main in a copy of the repository (same commits, same keys), then lowers every score
  const scout = path.join(tempDir(t), 'scout')
  fs.cpSync(repo, scout, {recursive: true})
  const s0 = await expJson<{id: string}>(['attempt', 'new', 'quad', '--lane', 'scout'], {cwd: scout})
  for (const split of ['dev', 'holdout']) t.equal((await exp(['attempt', 'eval', s0.id, '--split', split, '--lane', 'scout'], {cwd: scout})).code, 0)
  const ledger = JSON.parse((await exp(['ledger', '--json'], {cwd: scout})).stdout) as {kind: Kind; id: string; key?: string; body: Record<string, unknown> & {attempt?: string; metrics?: Record<string, number>; metric?: {value: number}; verified_metrics?: Record<string, number>; observation?: string; observation_digest?: string}; cites: string[]}[]
  const base = ledger.find(r => r.kind === 'attempt' && r.key!.startsWith('baseline/'))!
  const forged: object[] = [{kind: 'attempt', key: base.key, body: base.body, cites: base.cites}]
  const digests = new Map<string, string>()
  for (const r of ledger.filter(r => r.kind === 'observation' && r.body.attempt === base.id)) {
    const body = structuredClone(r.body)
    body.metrics!.score = -10
    const d = {kind: 'observation' as const, key: r.key, body, cites: r.cites}
    digests.set(r.id, recordDigest({...d, schema: schemaTag('observation')}))
    forged.push(d)
  }
  for (const r of ledger.filter(r => r.kind === 'verdict' && r.body.attempt === base.id)) {
    const body = structuredClone(r.body)
    body.metric!.value = -10
    if (body.verified_metrics) body.verified_metrics.score = -10
    body.observation_digest = digests.get(body.observation!)
    forged.push({kind: 'verdict', key: r.key, body, cites: r.cites})
  }
  t.equal(forged.length, 1 + 2 * digests.size, 'the baseline, and an observation and a verdict per repetition of both splits')
  const file = path.join(repo, '.git', 'forged.jsonl')
  fs.writeFileSync(file, forged.map(f => JSON.stringify(f)).join('\n') + '\n')
  const planted = await exp(['append', '--batch', file, '--lane', 'mallory'], {cwd: repo})
  t.equal(planted.code, 0, planted.stderr)

  // alice opens an attempt, changes nothing, and asks for its promotion
  const a = await expJson<{id: string}>(['attempt', 'new', 'quad', '--lane', 'alice'], {cwd: repo})
  const ho = await expJson<{verdicts: {id: string}[]; baseline: {verdicts: {id: string}[]}}>(['attempt', 'eval', a.id, '--split', 'holdout', '--lane', 'alice'], {cwd: repo})
  const r = await expJson<{verdict: string; checks: {name: string; passed: boolean; detail: string}[]}>(['attempt', 'promote', a.id, '--lane', 'alice'], {cwd: repo})
  t.equal(r.verdict, 'reject', 'measured against its own baseline, changing nothing is no improvement')
  t.match(r.checks.find(c => c.name === 'dev improves')?.detail, /neutral/)
  t.equal((await git(repo, 'rev-parse', 'main')).trim(), main, 'main did not move')
  const mallory = new Set(forged.map(f => prepare(f as RecordDraft).id))
  t.notOk(ho.baseline.verdicts.some(v => mallory.has(v.id)), "alice's evaluation reused none of the planted verdicts")

  // an accept resting on the planted baseline (written by hand on alice's lane) does not stand
  const all = JSON.parse((await exp(['ledger', '--json'], {cwd: repo})).stdout) as {kind: string; id: string; lane: string; body: {attempt?: string; split?: string; contract?: {digest: string}}}[]
  const mine = all.filter(x => x.kind === 'verdict' && x.body.attempt === a.id).map(x => x.id)
  const theirs = all.filter(x => x.kind === 'verdict' && x.lane === 'mallory').map(x => x.id)
  const digest = all.find(x => x.kind === 'verdict' && x.body.attempt === a.id)!.body.contract!.digest
  const blob = (await git(repo, 'rev-parse', 'main:.research/contracts/quad.yaml')).trim()
  const decision = {proposal: a.id, verdict: 'accept', policy: {version: 'contract@2', digest, path: '.research/contracts/quad.yaml', blob}, evaluations: [...mine, ...theirs], checks: [], reasons: ['-10 -> better'], regressions: []}
  t.equal((await exp(['append', 'decision', '-', '--lane', 'alice'], {cwd: repo, input: JSON.stringify({body: decision, cites: [a.id, ...mine, ...theirs]})})).code, 0)
  const fsck = await exp(['fsck', '--json'], {cwd: repo})
  t.not(fsck.code, 0)
  t.match(fsck.stdout, /forged_decision[^\n]*rests on verdict vd-[0-9a-f]+ of lane mallory: a decision rests on the measurements of its own lane/)
})

t.test("a lane that planted other records under the baseline's key and under its key salted with a lane's name refuses that lane no evaluation", async t => {
  const repo = await quadFixture(t)
  const main = (await git(repo, 'rev-parse', 'main')).trim()
  const key = `baseline/quad/${main}`
  const body = {contract: {name: 'quad', digest: `sha256:${'0'.repeat(64)}`}, branch: 'main', base: {commit: main, branch: 'main'}, ordinal: 0, reason: 'planted'}
  const file = path.join(repo, '.git', 'planted.jsonl')
  fs.writeFileSync(file, [key, `${key}@alice`].map(k => JSON.stringify({kind: 'attempt', key: k, body, cites: []})).join('\n') + '\n')
  const planted = await exp(['append', '--batch', file, '--lane', 'mallory'], {cwd: repo})
  t.equal(planted.code, 0, planted.stderr)
  const a = await expJson<{id: string}>(['attempt', 'new', 'quad', '--lane', 'alice'], {cwd: repo})
  const ev = await exp(['attempt', 'eval', a.id, '--split', 'dev', '--lane', 'alice', '--json'], {cwd: repo})
  t.equal(ev.code, 0, `E_CONFLICT before: ${ev.stderr}`)
  const baseline = (JSON.parse(ev.stdout) as {baseline: {attempt: string}}).baseline.attempt
  const rec = (await expJson<{id: string; key?: string; lane: string}[]>(['ledger', '--kind', 'attempt'], {cwd: repo})).find(r => r.id === baseline)!
  t.equal(rec.key, `${key}@alice#2`, 'the first key no other lane holds')
  t.equal(rec.lane, 'alice')
})

t.test('two clones that measured the same baseline alike and synced: each lane\'s accept still stands on its own copy', async t => {
  const a = await quadFixture(t)
  const b = path.join(tempDir(t), 'b')
  fs.cpSync(a, b, {recursive: true})
  // lane a measures the baseline at main in clone a; lane b, in clone b, measures it too and promotes an attempt
  const x = await expJson<{id: string}>(['attempt', 'new', 'quad', '--lane', 'a'], {cwd: a})
  t.equal((await exp(['attempt', 'eval', x.id, '--lane', 'a'], {cwd: a})).code, 0)
  const y = await expJson<{id: string; path: string}>(['attempt', 'new', 'quad', '--lane', 'b'], {cwd: b})
  fs.writeFileSync(path.join(y.path, 'params.json'), '{"x": 4, "y": 2}\n')
  const r = await expJson<{verdict: string}>(['attempt', 'promote', y.id, '--lane', 'b'], {cwd: b})
  t.equal(r.verdict, 'accept')
  // clone a takes clone b's lane and main: the baseline's records are in both lanes, byte for byte
  await git(a, 'fetch', '-q', b, '+refs/research/lanes/b:refs/research/lanes/b', '+main:refs/heads/from-b')
  const ledger = JSON.parse((await exp(['ledger', '--json'], {cwd: a})).stdout) as {id: string; lane: string}[]
  t.ok(ledger.some(e => e.lane === 'b'))
  const fsck = await exp(['fsck', '--json', '--main', 'from-b'], {cwd: a})
  t.equal(fsck.code, 0, `the accept stands: ${fsck.stdout.slice(0, 600)}`)
})

// Found by an attack sweep: another lane copied each dev run of an honest lane's rejected
// attempt with another score, under keys of its own, and wrote the verdict the contract gives
// for each: they re-derived, so the hypothesis read supported (on the frontier as a candidate for
// promotion), `exp attempt list` showed the copies' mean, and fsck said nothing. The same
// copies scored low turned a good attempt's hypothesis contradicted.
t.test("another lane's verdicts of an attempt, on copies of its runs with other scores, move no view; fsck names them, and that lane cannot evaluate it", async t => {
  const repo = await quadFixture(t)
  const {judgeObservation} = await import('../../src/evals/evaluator/command.js')
  const {parseContract} = await import('../../src/contracts/load.js')
  const blob = (await git(repo, 'rev-parse', 'main:.research/contracts/quad.yaml')).trim()
  const contract = parseContract(await git(repo, 'show', 'main:.research/contracts/quad.yaml'), '.research/contracts/quad.yaml', blob).contract!
  const hypothesis = async (statement: string) => (await exp(['append', 'hypothesis', '-', '--lane', 'alice'], {cwd: repo, input: JSON.stringify({statement, mechanism: 'closer to the optimum', expected_effect: {metric: 'score', direction: 'increase'}, conditions: [], mechanism_family: 'quad'})})).stdout.trim()
  // alice: attempt a is worse than main (rejected), attempt b better (evaluated, not decided yet)
  const [ha, hb] = [await hypothesis('x = -3 is better'), await hypothesis('x = 4, y = 2 is better')]
  const a = await expJson<{id: string; path: string}>(['attempt', 'new', 'quad', '--hypothesis', ha, '--lane', 'alice'], {cwd: repo})
  fs.writeFileSync(path.join(a.path, 'params.json'), '{"x": -3, "y": 2}\n')
  t.equal((await expJson<{verdict: string}>(['attempt', 'promote', a.id, '--lane', 'alice'], {cwd: repo})).verdict, 'reject')
  const b = await expJson<{id: string; path: string}>(['attempt', 'new', 'quad', '--hypothesis', hb, '--lane', 'alice'], {cwd: repo})
  fs.writeFileSync(path.join(b.path, 'params.json'), '{"x": 4, "y": 2}\n')
  t.equal((await exp(['attempt', 'eval', b.id, '--lane', 'alice'], {cwd: repo})).code, 0)
  const views = async () => ({
    list: await expJson<{id: string; lane: string; state: string; splits: {dev?: {mean?: number; outcomes: Record<string, number>}}}[]>(['attempt', 'list'], {cwd: repo}),
    hypotheses: Object.fromEntries((await expJson<{id: string; status: string}[]>(['hypotheses'], {cwd: repo})).map(h => [h.id, h.status])),
    frontier: await expJson<{promotion_candidates: unknown[]}>(['frontier', '--agent-id', 'someone'], {cwd: repo}),
  })
  const before = await views()
  t.match(before.hypotheses, {[ha]: 'contradicted', [hb]: 'supported'})
  // mallory: a copy of each of alice's dev runs, a scored 0 (the optimum) and b -1000, and the verdicts the contract gives them
  const ledger = await expJson<{kind: string; id: string; key?: string; lane: string; body: Record<string, unknown> & {attempt?: string; split?: string; metrics?: Record<string, number>; baseline?: {value: number; verdict?: string}}; cites: string[]}[]>(['ledger'], {cwd: repo})
  const forged: RecordDraft[] = []
  for (const [attempt, score] of [[a.id, 0], [b.id, -1000]] as const) {
    for (const v of ledger.filter(r => r.kind === 'verdict' && r.body.attempt === attempt && r.body.split === 'dev')) {
      const o = ledger.find(r => r.id === v.body.observation)!
      const body = {...structuredClone(o.body), metrics: {...o.body.metrics, score}}
      const obs = {kind: 'observation', key: `${o.key}@mallory`, body, cites: o.cites} as unknown as RecordDraft
      const p = prepare(obs)
      const judged = judgeObservation(body as never, contract, v.body.baseline as {value: number; verdict?: string})
      const {valid: _v, outcome: _o, metric: _m, verified_metrics: _vm, violations: _vi, needs_retry: _n, baseline: _b, invalid_kind: _i, ...rest} = v.body
      forged.push(obs, {kind: 'verdict', key: `verdict/${p.id}`, body: {...rest, observation: p.id, observation_digest: p.digest, ...judged}, cites: v.cites.map(c => (c === o.id ? p.id : c))} as unknown as RecordDraft)
    }
  }
  t.equal(forged.length, 8, 'an observation and a verdict for each of two repetitions of two attempts')
  const file = path.join(repo, '.git', 'forged.jsonl')
  fs.writeFileSync(file, forged.map(f => JSON.stringify(f)).join('\n') + '\n')
  const planted = await exp(['append', '--batch', file, '--lane', 'mallory'], {cwd: repo})
  t.equal(planted.code, 0, planted.stderr)
  const after = await views()
  t.same(after.hypotheses, before.hypotheses, 'a stays contradicted, b supported')
  t.same(after.frontier.promotion_candidates, before.frontier.promotion_candidates, 'no other candidate for promotion')
  for (const id of [a.id, b.id]) t.same(after.list.find(x => x.id === id), before.list.find(x => x.id === id), `${id}: its own mean and outcomes`)
  const fsck = await exp(['fsck', '--json'], {cwd: repo})
  t.equal(fsck.code, 5, fsck.stderr)
  const problems = (JSON.parse(fsck.stdout) as {error: {data: {problems: {code: string; ref: string; message: string}[]}}}).error.data.problems
  t.equal(problems.length, 4, problems.map(p => p.message).join('\n'))
  for (const p of problems) {
    t.match(p, {code: 'foreign_measurement', ref: 'refs/research/lanes/mallory'})
    t.match(p.message, new RegExp(`^foreign_measurement: vd-[0-9a-f]{24}: it is lane mallory's, a measurement of attempt (${a.id}|${b.id}) of lane alice`))
  }
  // nor can mallory measure it with exp: what it recorded would count for nothing
  const ev = await exp(['attempt', 'eval', b.id, '--lane', 'mallory'], {cwd: repo})
  t.equal(ev.code, 5, ev.stderr)
  t.match(ev.stderr, new RegExp(`attempt ${b.id} is lane alice's, not lane mallory's`))
})

t.test('a hypothesis another lane recorded first under a move\'s key, in other words, makes the research loop try another move, not fail', async t => {
  const repo = await quadFixture(t)
  // the move the search agent makes first, and its key, learned in a copy
  const scout = path.join(tempDir(t), 'scout')
  fs.cpSync(repo, scout, {recursive: true})
  t.equal((await exp(['research', 'quad', '--agent', 'search', '--attempts', '1', '--lane', 'scout'], {cwd: scout})).code, 0)
  const first = (JSON.parse((await exp(['ledger', '--kind', 'hypothesis', '--json'], {cwd: scout})).stdout) as {key: string; body: Record<string, unknown>}[])[0]!
  const planted = await exp(['append', 'hypothesis', '-', '--lane', 'mallory', '--key', first.key], {cwd: repo, input: JSON.stringify({...first.body, statement: 'planted'})})
  t.equal(planted.code, 0, planted.stderr)
  const r = await exp(['research', 'quad', '--agent', 'search', '--attempts', '1', '--lane', 'alice'], {cwd: repo})
  t.equal(r.code, 0, r.stderr)
  t.match(r.stdout + r.stderr, /lane mallory recorded this move on this main first, in other words; another move/)
  const hyps = JSON.parse((await exp(['ledger', '--kind', 'hypothesis', '--lane', 'alice', '--json'], {cwd: repo})).stdout) as {key: string}[]
  t.equal(hyps.length, 1, 'alice recorded another move')
  t.not(hyps[0]!.key, first.key)
})

t.test("whose attempt it is does not change with a copy of its record another lane puts first in ledger order", async t => {
  const {Ledger} = await import('../../src/store/index.js')
  const {attemptId, attemptKey, attemptLane, ownMeasurement} = await import('../../src/attempts/keys.js')
  const id = attemptId(attemptKey('quad', 'alice', 1))
  const entry = (kind: 'attempt' | 'verdict', lane: string, lamport: number, rid = id, digest = 'sha256:a') => ({id: rid, kind, digest, lane, ref: `refs/research/lanes/${lane}`, private: false, lamport, commit: `${lamport}`.padStart(40, '0'), cites: []})
  // mallory's copy of alice's attempt (the same bytes) at Lamport 1, and a verdict of it from each lane
  const ledger = new Ledger([entry('attempt', 'mallory', 1), entry('attempt', 'alice', 5), entry('verdict', 'alice', 6, 'vd-a', 'sha256:b'), entry('verdict', 'mallory', 7, 'vd-m', 'sha256:c')], () => {
    throw new Error('no body is read')
  })
  const first = ledger.get(id)!
  t.equal(first.lane, 'mallory', 'the copy is first in ledger order')
  t.equal(attemptLane(ledger, first, {contract: 'quad', ordinal: 1}), 'alice', 'the lane its key names')
  t.ok(ownMeasurement(ledger, ledger.get('vd-a')!, first, {contract: 'quad', ordinal: 1}))
  t.notOk(ownMeasurement(ledger, ledger.get('vd-m')!, first, {contract: 'quad', ordinal: 1}))
  t.ok(ownMeasurement(ledger, ledger.get('vd-m')!, first, {contract: 'quad', ordinal: 0}), 'a baseline is measured by every lane, for its own attempts')
})

t.test('which branches an attempt or a proposal record may name as its own', async t => {
  const {ownProposalBranch} = await import('../../src/loop/proposal-scope.js')
  const id = 'pr-0123456789abcdef01234567'
  t.ok(ownProposalBranch(id, `exp/proposal/${id}`))
  t.ok(ownProposalBranch(id, `exp/proposal/matrix/a/${id}`), 'an experiment namespace')
  const {assertOwnAttempt} = await import('../../src/attempts/keys.js')
  const at = 'at-0123456789abcdef01234567'
  t.doesNotThrow(() => assertOwnAttempt(at, {branch: `exp/attempt/${at}`, ordinal: 3}))
  t.doesNotThrow(() => assertOwnAttempt(at, {branch: 'gate/abc', ordinal: 0, head: {commit: 'a'.repeat(40)}}), 'the gate and baselines own no branch')
  t.throws(() => assertOwnAttempt(at, {branch: `exp/attempt/${at}`, ordinal: 1, head: {commit: 'a'.repeat(40)}}), /names a fixed head commit/)
  t.throws(() => assertOwnAttempt(at, {branch: 'master', ordinal: 1}), /names branch "master"/)
  for (const b of ['main', 'master', `refs/heads/main`, `exp/proposal/x${id}`, `exp/proposal/../../main/${id}`, `exp/proposal//${id}`, `main/exp/proposal/${id}`, `exp/proposal/a b/${id}`]) t.notOk(ownProposalBranch(id, b), b)
})

t.test('a research agent that writes a token and forged trailers into its move: redacted in every record, one line in every commit message', async t => {
  const repo = await quadFixture(t)
  const fixtures = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'fixtures', 'agents')
  const r = await expJson<{attempts: {id: string; state: string}[]}>(['research', 'quad', '--agent', `command:python3 ${path.join(fixtures, 'leaky-researcher.py')}`, '--attempts', '1'], {cwd: repo})
  const id = r.attempts[0]!.id
  t.equal(allObjects(repo).indexOf('ghp_A1b2C3d4'), -1, 'the token is in no object: records, commit messages')
  const log = await git(repo, 'log', '--all', '--format=%H%x00%B%x01')
  t.notOk(log.includes('\x1b'), 'no terminal escape in any commit message')
  for (const entry of log.split('\x01').filter(x => x.trim())) {
    const body = entry.split('\x00')[1]!
    // every trailer of a commit is exp's own: in its last paragraph, naming this attempt
    const paragraphs = body.trim().split(/\n\s*\n/)
    t.notOk(paragraphs.slice(0, -1).some(p => /^Exp-(Attempt|Promotes):/m.test(p)), 'no trailer outside the trailer paragraph')
    t.notOk(/Exp-(Attempt|Promotes): at-0{24}/.test(paragraphs[paragraphs.length - 1]!), 'no forged trailer')
  }
  t.match(await git(repo, 'log', '-1', '--format=%B', `refs/research/rejected/${id}`).catch(() => git(repo, 'log', '-1', '--format=%B', 'main')), /^attempt: |^exp: promote/)
})

// Found by red-teaming: a research agent's words were redacted of credentials, not of the
// held-out key (64 hex digits match no credential pattern): an agent that had read it put it
// into public records and main's commit messages. (Sandboxes now hide a key file outside the
// repository too; this is the second wall.)
t.test('a research agent that writes the held-out key into its move: it is in no record and no commit message', async t => {
  const repo = await quadFixture(t)
  const key = Buffer.from(fs.readFileSync(path.join(repo, '.git/exp/holdout.key'), 'utf8').trim(), 'hex')
  t.equal(key.length, 32)
  const fixtures = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'fixtures', 'agents')
  for (const [form, leak] of [['hex', key.toString('hex')], ['base64', key.toString('base64')]] as const) {
    const r = await exp(['research', 'quad', '--agent', `command:--env EXP_TEST_LEAK python3 ${path.join(fixtures, 'leaky-researcher.py')}`, '--attempts', form === 'hex' ? '1' : '2', '--json'], {cwd: repo, env: {EXP_TEST_LEAK: leak}})
    t.equal(r.code, 0, r.stderr)
    t.equal(allObjects(repo).indexOf(leak), -1, `the key (${form}) is in no object: records, commit messages`)
    t.notOk(r.stdout.includes(leak) || r.stderr.includes(leak), `nor in what the command printed (${form})`)
  }
  const {keyFileHidden} = await import('../../src/cli/run-context.js')
  process.env.EXP_HOLDOUT_KEY_FILE = 'keys/../holdout.key'
  t.teardown(() => delete process.env.EXP_HOLDOUT_KEY_FILE)
  const {GitRecordStore} = await import('../../src/store/index.js')
  const store = await GitRecordStore.open(repo)
  t.same(keyFileHidden(store), [path.resolve('holdout.key')], 'a key file EXP_HOLDOUT_KEY_FILE names is hidden from every sandbox, wherever it is')
  await store.close()
  delete process.env.EXP_HOLDOUT_KEY_FILE
})

for (const main of ['main', 'master']) {
  t.test(`${main}: a merge pushed by hand that names a standing accept of another commit is not a promotion`, async t => {
    const repo = await quadFixture(t)
    if (main === 'master') await git(repo, 'branch', '-m', 'main', 'master')
    const a = await expJson<{id: string; path: string; branch: string}>(['attempt', 'new', 'quad'], {cwd: repo})
    fs.writeFileSync(path.join(a.path, 'params.json'), '{"x": 4, "y": 2}\n')
    const dev = await expJson<{verdicts: {id: string; body: {contract: {digest: string}}}[]; baseline: {verdicts: {id: string}[]}}>(['attempt', 'eval', a.id], {cwd: repo})
    const ho = await expJson<{verdicts: {id: string}[]; baseline: {verdicts: {id: string}[]}}>(['attempt', 'eval', a.id, '--split', 'holdout'], {cwd: repo})
    const evidence = [...dev.verdicts, ...dev.baseline.verdicts, ...ho.verdicts, ...ho.baseline.verdicts].map(v => v.id)
    const digest = dev.verdicts[0]!.body.contract.digest
    // someone with push access merges a commit nobody evaluated, with the trailers of a promotion
    await git(repo, 'checkout', '-q', '-b', 'unevaluated', main)
    fs.writeFileSync(path.join(repo, 'params.json'), '{"x": 100, "y": 2}\n')
    await git(repo, 'commit', '-qam', 'params: never evaluated')
    await git(repo, 'checkout', '-q', main)
    await git(repo, 'merge', '--no-ff', '-q', 'unevaluated', '-m', `exp: promote quad attempt #1 (${a.id})\n\nExp-Promotes: ${a.id}\nExp-Evidence: ${evidence.join(' ')}\nExp-Policy: contract@2 ${digest}`)
    const merge = (await git(repo, 'rev-parse', 'HEAD')).trim()
    const blob = (await git(repo, 'rev-parse', `${main}:.research/contracts/quad.yaml`)).trim()
    const decision = {proposal: a.id, verdict: 'accept', policy: {version: 'contract@2', digest, path: '.research/contracts/quad.yaml', blob}, evaluations: evidence, checks: [], reasons: ['the real verdicts of another commit'], regressions: [], merge: {commit: merge, branch: a.branch}}
    // (on the lane whose verdicts it cites: from another lane it would not stand for that alone)
    const d = await exp(['append', 'decision', '-'], {cwd: repo, input: JSON.stringify({body: decision, cites: [a.id, ...evidence]})})
    t.equal(d.code, 0, d.stderr)
    const fsck = await exp(['fsck', '--json'], {cwd: repo})
    t.not(fsck.code, 0, 'fsck fails')
    const problems = (JSON.parse(fsck.stdout) as {error: {data: {problems: {class?: string; commit?: string; message: string}[]}}}).error.data.problems
    t.match(problems.find(p => p.class === 'unverified_promotion'), {commit: merge, message: /verdicts judged/})
  })
}

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

// Found by an attack sweep: a research move's hypothesis key held the move's edits, file
// contents included: a rewritten file of realistic size made a key over 512 characters, and
// a token-like string in a file made the key a secret; either stopped `exp research`.
t.test('a research move that rewrites a file of realistic size, holding a token-like string: recorded under a short key that holds neither', async t => {
  const repo = await quadFixture(t)
  const agent = path.join(tempDir(t), 'big-move.py')
  fs.writeFileSync(agent, `import json, sys
json.loads(sys.stdin.readline())
content = json.dumps({"x": 4, "y": 2, "notes": "a" * 600 + " AKIAABCDEFGHIJKLMNOP"}) + "\\n"
print(json.dumps({"type": "move", "hypothesis": {"statement": "x=4", "mechanism": "closer"}, "edits": [{"path": "params.json", "content": content}], "reason": "x 1->4"}), flush=True)
`)
  const r = await exp(['research', 'quad', '--agent', `command:python3 ${agent}`, '--attempts', '1', '--json'], {cwd: repo})
  t.equal(r.code, 0, r.stderr)
  t.equal((JSON.parse(r.stdout) as {attempts: unknown[]}).attempts.length, 1, 'the attempt was made')
  const hyps = await expJson<{key?: string}[]>(['ledger', '--kind', 'hypothesis', '--json'], {cwd: repo})
  const key = hyps.map(h => h.key).find(k => k?.startsWith('research/quad/'))!
  t.match(key, /^research\/quad\/[0-9a-f]{40}\/[0-9a-f]{32}$/, 'the move by its digest')
  t.notOk(JSON.stringify(hyps).includes('AKIA'), 'no file content in the hypothesis')
})

// Found by an attack sweep: a research move that edits a path outside the work tree stopped
// the run after its attempt was opened, with nothing of the move in it; the next run evaluated
// that attempt unchanged and recorded a neutral result for a move never made.
t.test('a research move that leaves the work tree is refused before an attempt is opened: nothing is left to resume', async t => {
  const repo = await quadFixture(t)
  const agent = path.join(tempDir(t), 'escape.py')
  fs.writeFileSync(agent, `import json, sys
json.loads(sys.stdin.readline())
print(json.dumps({"type": "move", "hypothesis": {"statement": "escape", "mechanism": "write outside"}, "edits": [{"path": "../../../x.txt", "content": "x\\\\n"}], "reason": "escape"}), flush=True)
`)
  const r = await exp(['research', 'quad', '--agent', `command:python3 ${agent}`, '--attempts', '1'], {cwd: repo})
  t.equal(r.code, 6, r.stderr)
  t.match(r.stderr, /the research agent's move crosses its contract's boundary: an edit of "\.\.\/\.\.\/\.\.\/x\.txt" leaves the work tree/)
  t.match(r.stderr, /no attempt is recorded/)
  const attempts = await expJson<unknown[]>(['ledger', '--kind', 'attempt', '--json'], {cwd: repo})
  t.same(attempts.filter(a => (a as {body: {ordinal: number}}).body.ordinal > 0), [], 'no attempt was opened')
  const f = await expJson<{hypotheses: {status: string}[]}>(['frontier', '--json'], {cwd: repo}).catch(() => undefined)
  t.ok(f === undefined || !f.hypotheses?.some(h => h.status === 'claimed'), 'its hypothesis is not left claimed')
})

// Found by an attack sweep: `exp research` masked what the environment names as secrets and
// the key, not the values its `command:` agent is handed with --env (GH_PAT, DB_PASS match
// no credential name), which the agent's statement and reason carried into hypothesis and
// attempt records and their commit messages. `exp run` masks them; research now does too.
t.test("a research agent's --env values reach no record and no commit message, whatever their names", async t => {
  // (the quad contract on master: its evaluator is quick; the tuning example's models a slow one)
  const repo = await quadFixture(t)
  await git(repo, 'branch', '-m', 'main', 'master')
  t.match(await git(repo, 'symbolic-ref', 'HEAD'), /refs\/heads\/master/, 'on master')
  const agent = path.join(tempDir(t), 'agent.sh')
  fs.writeFileSync(agent, `#!/bin/sh\nread task\nprintf '{"type":"move","hypothesis":{"statement":"probe 3 %s","mechanism":"m %s"},"edits":[{"path":"params.json","content":"{\\\\"x\\\\": 4, \\\\"y\\\\": 2}\\\\n"}],"reason":"reason %s"}\\n' "$GH_PAT" "$GH_PAT" "$GH_PAT"\n`, {mode: 0o755})
  const value = 'plainvalue0xDEADBEEF77'
  const r = await exp(['research', 'quad', '--agent', `command:--env GH_PAT ${agent}`, '--attempts', '1'], {cwd: repo, env: {GH_PAT: value}})
  t.equal(r.code, 0, r.stderr)
  const history = await git(repo, 'log', '-p', '--all', '--format=%B')
  t.match(history, /probe 3 \[redacted\]/, 'the agent spoke, masked')
  t.notOk(history.includes(value), 'the value is in no record and no commit message')
  t.notOk(r.stdout.includes(value) || r.stderr.includes(value), 'nor in what it printed')
})

/** A contract whose score depends on the run's seed (EXP_SEED): a run at another seed measures other episodes. */
async function seededContract(t: {teardown(fn: () => void): void}): Promise<string> {
  const repo = await makeRepo(t)
  expect0(await exp(['init'], {cwd: repo}))
  fs.writeFileSync(path.join(repo, 'eval.mjs'), `import fs from 'node:fs'\nconst p = JSON.parse(fs.readFileSync('params.json', 'utf8'))\nconst s = Number(process.env.EXP_SEED)\nfs.writeFileSync('metrics.json', JSON.stringify({score: p.x + ((s * s * 13) % 10)}))\n`)
  fs.writeFileSync(path.join(repo, 'params.json'), '{"x": 1}\n')
  fs.writeFileSync(path.join(repo, '.research/contracts/c.yaml'), `version: 2\nname: c\nobjective: raise x\neditable_scope: [params.json]\nprotected_scope: [eval.mjs, .research/**]\nmetric: {name: score, direction: maximize, margin: 0.01}\ndev_eval: {command: node eval.mjs dev, timeout_seconds: 30, repetitions: 3, metrics_file: metrics.json}\nholdout_eval: {command: node eval.mjs holdout, timeout_seconds: 30, repetitions: 3, metrics_file: metrics.json}\nbudget: {max_attempts: 30, max_parallel_lanes: 3}\npromotion: {holdout_required: false, paired_alpha: 0.1}\n`)
  await git(repo, 'add', '-A')
  await git(repo, 'commit', '-qm', 'a contract whose evaluator depends on the seed')
  return repo
}

function expect0(r: {code: number; stderr: string}): void {
  if (r.code !== 0) throw new Error(r.stderr)
}

t.test('a baseline measured at another seed is not paired with an attempt: a change of nothing is not promoted, and a forged pairing does not stand', async t => {
  const repo = await seededContract(t)
  const main = (await git(repo, 'rev-parse', 'HEAD')).trim()
  // the lane's baseline recorded at seeds 50..52 (scores 1, 4, 3) by a throwaway attempt;
  // at the default seeds 42..44 the same files score 3, 8, 9
  const throwaway = await expJson<{id: string}>(['attempt', 'new', 'c'], {cwd: repo})
  await exp(['attempt', 'eval', throwaway.id, '--seed', '50'], {cwd: repo})
  const nothing = await expJson<{id: string}>(['attempt', 'new', 'c'], {cwd: repo})
  const pr = await exp(['attempt', 'promote', nothing.id, '--json'], {cwd: repo})
  const r = JSON.parse(pr.stdout) as {verdict: string; checks: {name: string; passed: boolean; detail: string}[]}
  t.equal(r.verdict, 'reject', `a change of nothing is not better than itself: ${JSON.stringify(r.checks)}`)
  t.equal((await git(repo, 'rev-parse', 'HEAD')).trim(), main, 'main did not move')
  t.equal((await exp(['fsck'], {cwd: repo})).code, 0, 'every verdict pairs runs of one seed')

  // a verdict that pairs a run at seed 42 with the baseline's run at seed 50 does not stand
  const verdicts = await expJson<{id: string; cites: string[]; body: Record<string, unknown> & {repetition: number; attempt: string; baseline?: {verdict?: string; value?: number}; split: string}}[]>(['ledger', '--kind', 'verdict'], {cwd: repo})
  const observations = await expJson<{id: string; body: {seed: number; attempt: string}}[]>(['ledger', '--kind', 'observation'], {cwd: repo})
  const seedOf = (v: {body: Record<string, unknown>}) => observations.find(o => o.id === v.body.observation)!.body.seed
  const mine = verdicts.find(v => v.body.attempt === nothing.id && v.body.repetition === 0 && v.body.baseline?.verdict)!
  const other = verdicts.find(v => v.body.attempt !== nothing.id && v.body.repetition === 0 && v.body.split === 'dev' && seedOf(v) === 50)!
  t.ok(mine && other, 'the fixture has both runs')
  const otherValue = (other.body as {metric?: {value: number}}).metric!.value
  const forged = {...mine.body, baseline: {...mine.body.baseline, verdict: other.id, value: otherValue}}
  const f = await exp(['append', 'verdict', '-', '--key', 'forged/pairing', '--cite', mine.cites[0]!, '--cite', other.id], {cwd: repo, input: JSON.stringify(forged)})
  t.equal(f.code, 0, f.stderr)
  const fsck = await exp(['fsck'], {cwd: repo})
  t.match(fsck.stdout + fsck.stderr, /a run at seed 50, not at its own seed 42/)
})

// Found by an attack sweep: the research agent was sent every file an editable glob matched,
// protected or not: with `conf/**` editable and `conf/gold/**` protected, the evaluator's gold
// answers reached the agent (and from its move, the records), though it could never change them.
t.test('a protected file an editable glob also matches is not sent to the research agent, in the task or in the evidence', async t => {
  const repo = await quadFixture(t)
  fs.mkdirSync(path.join(repo, 'conf', 'gold'), {recursive: true})
  fs.writeFileSync(path.join(repo, 'conf', 'model.json'), '{"lr": 1}\n')
  fs.writeFileSync(path.join(repo, 'conf', 'gold', 'answers.json'), '{"answer": "GOLD-ANSWER-42"}\n')
  const c = path.join(repo, '.research/contracts/quad.yaml')
  fs.writeFileSync(c, fs.readFileSync(c, 'utf8').replace('  - params.json\n', '  - params.json\n  - conf/**\n').replace('  - eval.py\n', '  - eval.py\n  - conf/gold/**\n').replace(/repetitions: 2/g, 'repetitions: 1'))
  await git(repo, 'add', '-A')
  await git(repo, 'commit', '-qm', 'gold answers beside the editable configuration')
  const agent = path.join(tempDir(t), 'peek.py')
  fs.writeFileSync(agent, `import json, sys
task = json.loads(sys.stdin.readline())
seen = [f["path"] for f in task["files"]] + [f["path"] for a in task["evidence"] for f in a["files"]]
print(json.dumps({"type": "move", "hypothesis": {"statement": "saw " + " ".join(seen), "mechanism": "peek"}, "edits": [{"path": "params.json", "content": "{\\"x\\": %d, \\"y\\": 1}\\n" % (1 + task["ordinal"])}], "reason": "saw " + " ".join(seen) + " " + "".join(f["content"] for f in task["files"])}), flush=True)
`)
  const r = await exp(['research', 'quad', '--agent', `command:python3 ${agent}`, '--attempts', '2', '--json'], {cwd: repo})
  t.equal(r.code, 0, r.stderr)
  const attempts = await expJson<{body: {reason?: string; ordinal: number}}[]>(['ledger', '--kind', 'attempt'], {cwd: repo})
  const reasons = attempts.filter(a => a.body.ordinal > 0).map(a => a.body.reason ?? '')
  t.equal(reasons.length, 2, 'both attempts were made, the second with the first as evidence')
  t.ok(reasons.every(x => x.includes('conf/model.json') && x.includes('params.json')), 'the editable files are sent')
  t.notOk(reasons.some(x => x.includes('conf/gold/answers.json')), 'the protected file is not sent, in the task or the evidence')
  t.notOk(reasons.some(x => x.includes('GOLD-ANSWER-42')), 'nor its content')
})

// Found by an attack sweep: git apply checks the paths a unified diff writes, not the source
// of a copy or a rename it reads: a research move's patch `copy from ../../holdout.key` (the
// attempt's work tree is .git/exp/worktrees/<id>) put the held-out key into the attempt's
// commit, and the next task sent it back to the agent as an earlier attempt's editable file.
t.test("a research move's unified diff that copies or renames a file — the key beside the work tree, a protected file — is refused before an attempt is opened", async t => {
  const repo = await quadFixture(t)
  const key = fs.readFileSync(path.join(repo, '.git/exp/holdout.key'), 'utf8').trim()
  for (const source of ['../../holdout.key', 'eval.py', '/etc/hostname']) {
    const agent = path.join(tempDir(t), 'copier.py')
    const patch = `diff --git a/params.json b/params.json\ndeleted file mode 100644\n--- a/params.json\n+++ /dev/null\n@@ -1 +0,0 @@\n-{"x": 1, "y": 1}\ndiff --git a/${source} b/params.json\nsimilarity index 100%\ncopy from ${source}\ncopy to params.json\n`
    fs.writeFileSync(agent, `import json, sys\njson.loads(sys.stdin.readline())\nprint(json.dumps({"type": "move", "hypothesis": {"statement": "copy ${source}", "mechanism": "patch"}, "patch": ${JSON.stringify(patch)}, "reason": "copy"}), flush=True)\n`)
    const r = await exp(['research', 'quad', '--agent', `command:python3 ${agent}`, '--attempts', '1'], {cwd: repo})
    t.equal(r.code, 6, r.stderr)
    t.match(r.stderr, `its unified diff copies or renames a file ("copy from ${source}")`, source)
  }
  const attempts = await expJson<{body: {ordinal: number}}[]>(['ledger', '--kind', 'attempt', '--json'], {cwd: repo})
  t.same(attempts.filter(a => a.body.ordinal > 0), [], 'no attempt was opened')
  t.equal(allObjects(repo).indexOf(key), -1, 'the key is in no object')
})

// Found by an attack sweep: git apply takes a binary patch's postimage from the object database
// when it holds the blob the patch's index line names: a research move could write any blob of
// the repository (a protected file, a record of a private lane) into the attempt by its id, and
// have it sent back as evidence, or learn which ids exist.
t.test("a research move's binary patch, which git apply would take from the repository's objects by id, is refused before an attempt is opened", async t => {
  const repo = await quadFixture(t)
  const blob = (await git(repo, 'rev-parse', 'HEAD:eval.py')).trim()
  for (const header of ['GIT binary patch\nliteral 0\nHcmV?d00001\n\nliteral 0\nHcmV?d00001\n', 'Binary files /dev/null and b/params.json differ\n']) {
    const agent = path.join(tempDir(t), 'binary.py')
    const patch = `diff --git a/params.json b/params.json\ndeleted file mode 100644\n--- a/params.json\n+++ /dev/null\n@@ -1 +0,0 @@\n-{"x": 1, "y": 1}\ndiff --git a/params.json b/params.json\nnew file mode 100644\nindex ${'0'.repeat(40)}..${blob}\n${header}`
    fs.writeFileSync(agent, `import json, sys\njson.loads(sys.stdin.readline())\nprint(json.dumps({"type": "move", "hypothesis": {"statement": "by id", "mechanism": "binary patch"}, "patch": ${JSON.stringify(patch)}, "reason": "binary"}), flush=True)\n`)
    const r = await exp(['research', 'quad', '--agent', `command:python3 ${agent}`, '--attempts', '1'], {cwd: repo})
    t.equal(r.code, 6, r.stderr)
    t.match(r.stderr, /its unified diff is a binary patch/, header.split('\n')[0]!)
  }
  const attempts = await expJson<{body: {ordinal: number}}[]>(['ledger', '--kind', 'attempt', '--json'], {cwd: repo})
  t.same(attempts.filter(a => a.body.ordinal > 0), [], 'no attempt was opened')
  t.notOk((await git(repo, 'branch', '--list', 'exp/attempt/*')).trim(), 'no attempt branch holds the blob')
})

// Found by an attack sweep: a research move that writes a file where main has a folder (or below
// a file of main) failed after its attempt was opened, with an unexpected EISDIR, and the next
// run evaluated that attempt unchanged: a result recorded for a move never made.
t.test('a research move that edits a folder of main, or a path below a file of main, is refused before an attempt is opened', async t => {
  const repo = await quadFixture(t)
  for (const [edit, why] of [['.research', /an edit of "\.research" names a folder of main, not a file/], ['params.json/x', /an edit of "params\.json\/x" goes below "params\.json", a file of main/]] as const) {
    const agent = path.join(tempDir(t), 'clash.py')
    fs.writeFileSync(agent, `import json, sys\njson.loads(sys.stdin.readline())\nprint(json.dumps({"type": "move", "hypothesis": {"statement": "clash ${edit}", "mechanism": "m"}, "edits": [{"path": "${edit}", "content": "x"}], "reason": "clash"}), flush=True)\n`)
    const r = await exp(['research', 'quad', '--agent', `command:python3 ${agent}`, '--attempts', '1'], {cwd: repo})
    t.equal(r.code, 6, r.stderr)
    t.match(r.stderr, why)
  }
  const attempts = await expJson<{body: {ordinal: number}}[]>(['ledger', '--kind', 'attempt', '--json'], {cwd: repo})
  t.same(attempts.filter(a => a.body.ordinal > 0), [], 'no attempt was opened, so none is left to evaluate unchanged')
})

// Found by an attack sweep: a research move's unified diff was first applied in the attempt's
// work tree: one that did not apply left the attempt open with nothing of the move in it (the
// next run recorded a neutral result and a reject of a move never made), and one that changed a
// protected file applied when the agent guessed its lines: an oracle on files it is never shown.
t.test("a research move's unified diff is checked against the editable files as given, before an attempt is opened", async t => {
  const repo = await quadFixture(t)
  const line1 = fs.readFileSync(path.join(repo, 'eval.py'), 'utf8').split('\n')[0]!
  const moves = {
    stale: '--- a/params.json\n+++ b/params.json\n@@ -1 +1 @@\n-{"x": 9, "y": 9}\n+{"x": 5, "y": 2}\n',
    guess: `--- a/eval.py\n+++ b/eval.py\n@@ -1 +1,2 @@\n ${line1}\n+# guessed\n`,
    // creating a file main has and the agent is not shown: it passed the check and failed after the attempt was opened
    create: 'diff --git a/eval.py b/eval.py\nnew file mode 100644\n--- /dev/null\n+++ b/eval.py\n@@ -0,0 +1 @@\n+print("mine")\n',
    good: '--- a/params.json\n+++ b/params.json\n@@ -1 +1 @@\n-{"x": 1, "y": 1}\n+{"x": 3, "y": 2}\n',
  }
  const run = async (patch: string) => {
    const agent = path.join(tempDir(t), 'patcher.py')
    fs.writeFileSync(agent, `import json, sys\njson.loads(sys.stdin.readline())\nprint(json.dumps({"type": "move", "hypothesis": {"statement": ${JSON.stringify(patch.slice(0, 60))}, "mechanism": "patch"}, "patch": ${JSON.stringify(patch)}, "reason": "patch"}), flush=True)\n`)
    return exp(['research', 'quad', '--agent', `command:python3 ${agent}`, '--attempts', '1', '--json'], {cwd: repo})
  }
  for (const patch of [moves.stale, moves.guess, moves.create]) {
    const r = await run(patch)
    t.not(r.code, 0)
    t.match(r.stderr, /its unified diff does not apply to the editable files as main has them \(nothing was opened or recorded\)/)
    const attempts = await expJson<{body: {ordinal: number}}[]>(['ledger', '--kind', 'attempt', '--json'], {cwd: repo})
    t.same(attempts.filter(a => a.body.ordinal > 0), [], 'no attempt was opened, so none is left to evaluate unchanged')
  }
  const good = await run(moves.good)
  t.equal(good.code, 0, good.stderr)
  t.match(JSON.parse(good.stdout), {attempts: [{state: 'accepted'}]}, 'a patch of the editable files as given applies')
})
