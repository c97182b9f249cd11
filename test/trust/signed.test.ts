import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {execFileSync} from 'node:child_process'
import zlib from 'node:zlib'
import {exp, expJson} from '../helpers/cli.js'
import {GIT_ENV, git, tempDir} from '../helpers/repo.js'
import {keypair, signedPolicyRepo} from '../helpers/signing.js'
import {GitRecordStore} from '../../src/store/index.js'
import {GitWorkspace} from '../../src/workspace/git.js'
import {loadAuthority} from '../../src/trust/load.js'
import {signatureHeader} from '../../src/trust/ssh.js'

t.test('with require_signed_evidence, an unsigned evaluation from another clone counts for nothing and a signed one counts', async t => {
  const keys = tempDir(t)
  const ci = keypair(keys, 'ci')
  const stranger = keypair(keys, 'stranger')
  const intern = keypair(keys, 'intern')
  const a = await signedPolicyRepo(t, [['ci@exp', ci.pub], ['intern@exp', intern.pub]])

  // the evaluator of this repository signs
  await git(a, 'config', 'exp.signingKey', ci.key)
  const signed = await expJson<{evaluation: string}>(['run', 'validation', '--lane', 'ci'], {cwd: a})
  // another clone, no key: its evaluation arrives unsigned
  const b = path.join(tempDir(t), 'b')
  await git(path.dirname(b), 'clone', '-q', a, b)
  const unsigned = await expJson<{evaluation: string}>(['run', 'validation', '--lane', 'bob', '--seed', '7'], {cwd: b})
  // a third signs with a key that is not allowed, a fourth with an allowed key whose principal is not trusted
  await git(b, 'config', 'exp.signingKey', stranger.key)
  const foreign = await expJson<{evaluation: string}>(['run', 'validation', '--lane', 'eve', '--seed', '8'], {cwd: b})
  await git(b, 'config', 'exp.signingKey', intern.key)
  const untrusted = await expJson<{evaluation: string}>(['run', 'validation', '--lane', 'ivan', '--seed', '9'], {cwd: b})
  await git(a, 'fetch', '-q', b, 'refs/research/lanes/*:refs/research/lanes/*')

  const store = await GitRecordStore.open(a)
  t.teardown(() => store.close())
  const ws = new GitWorkspace(store)
  const authority = await loadAuthority(await store.ledger(), ws, {at: (await ws.resolve('main'))!})
  t.match(authority.standing(signed.evaluation), {ok: true}, 'signed by ci@exp: counts')
  t.match(authority.standing(unsigned.evaluation), {ok: false, class: 'unsigned_evidence', reason: /not signed/})
  t.match(authority.standing(foreign.evaluation), {ok: false, class: 'unsigned_evidence', reason: /not in the allowed signers/})
  t.match(authority.standing(untrusted.evaluation), {ok: false, class: 'unsigned_evidence', reason: /intern@exp, who is not a trusted evaluator identity/})

  const fsck = await exp(['fsck', '--json'], {cwd: a})
  t.equal(fsck.code, 5)
  const ids = (JSON.parse(fsck.stdout) as {error: {data: {problems: {class?: string; id?: string}[]}}}).error.data.problems.filter(p => p.class === 'unsigned_evidence').map(p => p.id).sort()
  t.same(ids, [unsigned.evaluation, foreign.evaluation, untrusted.evaluation].sort(), 'fsck lists exactly the three')

  // plain git agrees with exp about the signature
  const commit = (await store.ledger()).get(signed.evaluation)!.commit
  const allowed = path.join(keys, 'allowed')
  fs.copyFileSync(path.join(a, '.research/allowed_signers'), allowed)
  const verified = execFileSync('git', ['-c', `gpg.ssh.allowedSignersFile=${allowed}`, 'verify-commit', commit], {cwd: a, env: GIT_ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe']})
  t.equal(typeof verified, 'string', 'git verify-commit accepts the commit exp signed')
})

t.test("an edited cache cannot lend a signed commit's signature to an unsigned record", async t => {
  // the cache under .git/exp is derived data anyone who can write .git can edit (an
  // evaluator command run in the checkout, say): its index names each record's commit, and
  // a signature is looked up by that commit, so the record must be the one the commit added
  const keys = tempDir(t)
  const ci = keypair(keys, 'ci')
  const a = await signedPolicyRepo(t, [['ci@exp', ci.pub]])
  await git(a, 'config', 'exp.signingKey', ci.key)
  const signed = await expJson<{evaluation: string}>(['run', 'validation', '--lane', 'ci'], {cwd: a})
  await git(a, 'config', '--unset', 'exp.signingKey')
  const unsigned = await expJson<{evaluation: string}>(['run', 'validation', '--lane', 'bob', '--seed', '7'], {cwd: a})
  t.equal((await exp(['ledger'], {cwd: a})).code, 0, 'the cache is written')

  const cacheDir = path.join(a, '.git/exp/cache-v4')
  const stateFile = path.join(cacheDir, 'state.json')
  const state = JSON.parse(fs.readFileSync(stateFile, 'utf8')) as {lanes: Record<string, {gen: number; idxBytes: number; crc: number}>}
  const signedCommit = (await git(a, 'log', '-1', '--format=%H', `--grep=${signed.evaluation}`, 'refs/research/lanes/ci')).trim()
  t.match(signedCommit, /^[0-9a-f]{40}$/)
  const st = state.lanes['refs/research/lanes/bob']!
  const idx = path.join(cacheDir, `refs~research~lanes~bob.${st.gen}.idx`)
  const lines = fs.readFileSync(idx, 'latin1').split('\n')
  const at = lines.findIndex(l => l.split('\t')[1] === unsigned.evaluation)
  t.ok(at >= 0, 'the unsigned evaluation is in the index')
  lines[at] = `${signedCommit}${lines[at]!.slice(40)}`
  const edited = Buffer.from(lines.join('\n'), 'latin1')
  fs.writeFileSync(idx, edited)
  st.crc = zlib.crc32(edited.subarray(0, st.idxBytes))
  fs.writeFileSync(stateFile, JSON.stringify(state))

  const store = await GitRecordStore.open(a)
  t.teardown(() => store.close())
  const ledger = await store.ledger()
  t.equal(ledger.get(unsigned.evaluation)?.commit, signedCommit, 'the ledger took the commit the edited cache names (its bytes check out)')
  const ws = new GitWorkspace(store)
  const authority = await loadAuthority(ledger, ws, {at: (await ws.resolve('main'))!})
  t.match(authority.standing(signed.evaluation), {ok: true}, 'the signed one still counts')
  t.match(authority.standing(unsigned.evaluation), {ok: false, class: 'unsigned_evidence', reason: /did not add this record/}, 'the unsigned one does not, whatever commit the cache names')
})

t.test('a commit with a damaged SSH signature is one unsigned record: every view still works', async t => {
  // any lane owner can push a commit whose gpgsig holds any bytes: a 2-byte public key blob
  // used to throw out of the verifier and stop fsck, frontier, report... with "truncated"
  const keys = tempDir(t)
  const ci = keypair(keys, 'ci')
  const a = await signedPolicyRepo(t, [['ci@exp', ci.pub]])
  const ev = await expJson<{evaluation: string}>(['run', 'validation', '--lane', 'mallory'], {cwd: a})
  const s = (b: Buffer | string) => {
    const len = Buffer.alloc(4)
    len.writeUInt32BE(Buffer.byteLength(b))
    return Buffer.concat([len, Buffer.from(b)])
  }
  const blob = Buffer.concat([Buffer.from('SSHSIG'), s(Buffer.from([0, 0, 0, 1])).subarray(4), s(Buffer.from([0, 1])), s('git'), s(''), s('sha512'), s('')])
  const header = signatureHeader(`-----BEGIN SSH SIGNATURE-----\n${blob.toString('base64')}\n-----END SSH SIGNATURE-----`)
  const tip = (await git(a, 'rev-parse', 'refs/research/lanes/mallory')).trim()
  const raw = await git(a, 'cat-file', 'commit', tip)
  const forged = raw.replace('\n\n', `\n${header}\n\n`)
  const file = path.join(keys, 'commit')
  fs.writeFileSync(file, forged)
  const oid = (await git(a, 'hash-object', '-t', 'commit', '-w', file)).trim()
  await git(a, 'update-ref', 'refs/research/lanes/mallory', oid, tip)

  const fsck = await exp(['fsck', '--json'], {cwd: a})
  t.equal(fsck.code, 5, fsck.stderr)
  const problems = (JSON.parse(fsck.stdout) as {error: {data: {problems: {class?: string; id?: string; message?: string}[]}}}).error.data.problems
  t.match(problems, [{class: 'unsigned_evidence', id: ev.evaluation, message: /a damaged signature/}])
  for (const view of [['frontier'], ['hypotheses'], ['provenance', 'onboarding'], ['report']]) {
    const r = await exp(view, {cwd: a})
    t.equal(r.code, 0, `exp ${view.join(' ')}: ${r.stderr}`)
  }
})

t.test('retiring a key with valid-before keeps the evidence it signed before, as git verify-commit does', async t => {
  const keys = tempDir(t)
  const ci = keypair(keys, 'ci')
  const a = await signedPolicyRepo(t, [['ci@exp', ci.pub]])
  await git(a, 'config', 'exp.signingKey', ci.key)
  const ev = await expJson<{evaluation: string}>(['run', 'validation', '--lane', 'ci'], {cwd: a})
  const commit = (await git(a, 'log', '-1', '--format=%H', 'refs/research/lanes/ci')).trim()
  const time = Number((await git(a, 'log', '-1', '--format=%ct', commit)).trim())
  const stamp = (s: number) => `${new Date(s * 1000).toISOString().replace(/[-:T]|\.\d+/g, '')}`
  const standing = async (validBefore: number) => {
    fs.writeFileSync(path.join(a, '.research/allowed_signers'), `ci@exp namespaces="git",valid-before="${stamp(validBefore)}" ${ci.pub}\n`)
    await git(a, 'commit', '-qam', 'retire the ci key')
    const gitSays = await git(a, '-c', 'gpg.ssh.allowedSignersFile=.research/allowed_signers', 'log', '-1', '--format=%G?', commit)
    const store = await GitRecordStore.open(a)
    try {
      const ws = new GitWorkspace(store)
      return {git: gitSays.trim(), exp: (await loadAuthority(await store.ledger(), ws, {at: (await ws.resolve('main'))!})).standing(ev.evaluation)}
    } finally {
      store.close()
    }
  }
  t.match(await standing(time), {git: 'G', exp: {ok: true}}, 'retired after it signed: git and exp still take it')
  t.match(await standing(time - 1), {git: /^[^G]$/, exp: {ok: false, class: 'unsigned_evidence', reason: /expired in allowed_signers \(valid-before=/}}, 'retired before: both refuse, and exp says why')
})

t.test('a key whose line names several principals counts when any is one of signers; a pattern principal does not', async t => {
  const keys = tempDir(t)
  const ci = keypair(keys, 'ci')
  const a = await signedPolicyRepo(t, [['ci@exp', ci.pub]])
  await git(a, 'config', 'exp.signingKey', ci.key)
  const ev = await expJson<{evaluation: string}>(['run', 'validation', '--lane', 'ci'], {cwd: a})
  const standing = async (allowed: string) => {
    fs.writeFileSync(path.join(a, '.research/allowed_signers'), allowed)
    await git(a, 'commit', '-qam', 'allowed signers')
    const store = await GitRecordStore.open(a)
    try {
      const ws = new GitWorkspace(store)
      return (await loadAuthority(await store.ledger(), ws, {at: (await ws.resolve('main'))!})).standing(ev.evaluation)
    } finally {
      store.close()
    }
  }
  // signers: [ci@exp]
  t.match(await standing(`ops@exp,ci@exp ${ci.pub}\n`), {ok: true}, 'ci@exp is its second principal')
  t.match(await standing(`ops@exp ${ci.pub}\nci@exp ${ci.pub}\n`), {ok: true}, 'ci@exp is on its second line')
  // a pattern names no identity: were `*@exp` to count as ci@exp, any key of the org's line would
  t.match(await standing(`*@exp ${ci.pub}\n`), {ok: false, class: 'unsigned_evidence', reason: /signed by \*@exp, who is not a trusted evaluator identity \(ci@exp\): a pattern in allowed_signers counts only for a signers entry that writes the same pattern/})
  t.match(await standing(`ops@exp ${ci.pub}\n`), {ok: false, class: 'unsigned_evidence', reason: /signed by ops@exp, who is not/})
})
