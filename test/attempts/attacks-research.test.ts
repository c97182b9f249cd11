import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {execFileSync} from 'node:child_process'
import {exp, expJson} from '../helpers/cli.js'
import {GIT_ENV, git, tempDir} from '../helpers/repo.js'
import {quadFixture} from '../helpers/contracts.js'

/**
 * Attacks by a research agent (`exp research --agent command:…`) through its moves: what it
 * writes into a hypothesis, an edit or a unified diff. No secret it was handed or read may
 * reach a record or a commit message, and a move that reaches outside the editable files is
 * refused before an attempt is opened. (The attacks of code the evaluator runs are in
 * attacks.test.ts, those of records other lanes write in attacks-records.test.ts.)
 */

const allObjects = (repo: string) => execFileSync('git', ['cat-file', '--batch-all-objects', '--batch'], {cwd: repo, env: GIT_ENV, maxBuffer: 1 << 28}).toString('latin1')

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
