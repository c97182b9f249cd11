import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {execFileSync} from 'node:child_process'
import {tempDir} from '../helpers/repo.js'
import {matchPattern, matchPatternList, parseAllowedSigners, verifySshSig} from '../../src/trust/sshsig.js'

const NOW = Date.now() / 1000

// The in-process check must agree with ssh-keygen, which makes and checks the signatures here.
t.test('ed25519 SSH signatures are verified in process exactly as ssh-keygen -Y verify does', async t => {
  const dir = tempDir(t)
  const key = (name: string, type = 'ed25519') => {
    execFileSync('ssh-keygen', ['-q', '-t', type, '-N', '', '-C', name, '-f', path.join(dir, name)])
    return fs.readFileSync(path.join(dir, `${name}.pub`), 'utf8').trim()
  }
  const ci = key('ci')
  const other = key('other')
  const rsa = key('rsa', 'rsa')
  const sign = (name: string, data: string, ns = 'git') => execFileSync('ssh-keygen', ['-Y', 'sign', '-f', path.join(dir, name), '-n', ns], {input: data, stdio: ['pipe', 'pipe', 'ignore']}).toString()
  const allowed = parseAllowedSigners(`# who signs evidence\nci@exp namespaces="git" ${ci}\nrsa@exp ${rsa}\n`)!
  t.equal(allowed.length, 2)
  const payload = 'tree 0123\n\nevaluation: validation 8/16\n'
  t.same(verifySshSig(sign('ci', payload), Buffer.from(payload), allowed, NOW), {principals: ['ci@exp']})
  t.match(verifySshSig(sign('ci', payload), Buffer.from(`${payload}x`), allowed, NOW), {reason: /does not verify/}, 'changed payload')
  t.match(verifySshSig(sign('other', payload), Buffer.from(payload), allowed, NOW), {reason: /not in the allowed signers/}, 'another key')
  t.match(verifySshSig(sign('ci', payload, 'file'), Buffer.from(payload), allowed, NOW), {reason: /namespace file/}, 'another namespace')
  t.equal(verifySshSig(sign('rsa', payload), Buffer.from(payload), allowed, NOW), undefined, 'RSA: left to ssh-keygen')
  const armored = sign('ci', payload)
  const lines = armored.split('\n')
  // a character in the middle of the last full line: inside the signature bytes
  const i = lines.length - 4
  lines[i] = lines[i]!.slice(0, 30) + (lines[i]![30] === 'A' ? 'B' : 'A') + lines[i]!.slice(31)
  const broken = lines.join('\n')
  t.ok(verifySshSig(broken, Buffer.from(payload), allowed, NOW)?.reason, 'a damaged signature is refused')
  t.equal(parseAllowedSigners(`ci@exp cert-authority ${ci}\n`), undefined, 'options it does not read: left to ssh-keygen')
  void other
})

// The signature bytes come from a commit header any lane owner writes: whatever they hold,
// the verifier answers a reason, never throws (a throw stopped every trust view of the repository).
t.test('a damaged signature is refused with a reason, whatever its bytes', async t => {
  const dir = tempDir(t)
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'ci', '-f', path.join(dir, 'ci')])
  const ci = fs.readFileSync(path.join(dir, 'ci.pub'), 'utf8').trim()
  const allowed = parseAllowedSigners(`ci@exp ${ci}\n`)!
  const payload = Buffer.from('tree 0123\n\nevaluation: validation 8/16\n')
  const armored = execFileSync('ssh-keygen', ['-Y', 'sign', '-f', path.join(dir, 'ci'), '-n', 'git'], {input: payload, stdio: ['pipe', 'pipe', 'ignore']}).toString()
  const blob = Buffer.from(armored.replace(/-----(BEGIN|END) SSH SIGNATURE-----|\s/g, ''), 'base64')
  const armor = (b: Buffer) => `-----BEGIN SSH SIGNATURE-----\n${b.toString('base64')}\n-----END SSH SIGNATURE-----`
  const check = (sig: string) => verifySshSig(sig, payload, allowed, NOW)
  t.same(check(armor(blob)), {principals: ['ci@exp']}, 'the re-armored original verifies')

  const s = (b: Buffer | string) => {
    const len = Buffer.alloc(4)
    len.writeUInt32BE(Buffer.byteLength(b))
    return Buffer.concat([len, Buffer.from(b)])
  }
  const crafted = (pk: Buffer) => armor(Buffer.concat([Buffer.from('SSHSIG'), Buffer.from([0, 0, 0, 1]), s(pk), s('git'), s(''), s('sha512'), s('')]))
  t.match(check(crafted(Buffer.from([0, 1]))), {reason: /damaged/}, 'a 2-byte public key blob (the one that crashed every view)')
  t.match(check(crafted(s('ssh-ed25519'))), {reason: /./}, 'an ed25519 key with no key bytes')
  const huge = Buffer.from(blob)
  huge.writeUInt32BE(0xffffffff, 10)
  t.match(check(armor(huge)), {reason: /damaged/}, 'a length field of 4 GiB')
  t.match(check(armor(Buffer.concat([blob, Buffer.from([0])]))), {reason: /damaged/}, 'a NUL after the end')
  t.ok(check(`${armored.slice(0, 60)}\0${armored.slice(60)}garbage`), 'a NUL in the armor and junk after it: an answer, no throw')
  t.match(check('-----BEGIN SSH SIGNATURE-----\n!!!!\n-----END SSH SIGNATURE-----'), {reason: /./}, 'not base64')

  let refused = 0
  for (let n = 0; n < blob.length; n++) if (check(armor(blob.subarray(0, n)))?.reason) refused++
  t.equal(refused, blob.length, 'every truncation of a good signature is refused with a reason')
  let flips = 0
  for (let i = 0; i < blob.length; i++) {
    for (const bit of [0x01, 0x80]) {
      const b = Buffer.from(blob)
      b[i]! ^= bit
      const v = check(armor(b))
      // a flip in the key type string makes it another key type: left to ssh-keygen (undefined)
      if (v === undefined || v.reason) flips++
    }
  }
  t.equal(flips, blob.length * 2, 'no flipped bit verifies, and none throws')
})

t.test('patterns read as OpenSSH reads them: wildcards, and a negated match refuses', async t => {
  for (const [name, pattern, want] of [['git', 'git', true], ['git', 'g*', true], ['git', '*', true], ['git', 'g?t', true], ['git', '?', false], ['git', 'gi', false], ['ci@example.org', '*@example.org', true], ['ci@example.org', '*@*.org', true], ['a.b', 'a?b', true], ['aXb', 'a.b', false], ['', '*', true], ['x', '', false], ['aaab', '*a*b', true], ['aaa', '*a*b', false]] as const) {
    t.equal(matchPattern(name, pattern), want, `${JSON.stringify(name)} ~ ${JSON.stringify(pattern)}`)
  }
  t.equal(matchPatternList('git', ['!git', '*']), -1, 'a negated match refuses, whatever matches after it')
  t.equal(matchPatternList('git', ['*', '!git']), -1, '... or before it')
  t.equal(matchPatternList('file', ['!git', '*']), 1)
  t.equal(matchPatternList('file', ['!git']), 0, 'negations alone allow nothing')
  t.equal(matchPattern('a'.repeat(5000), '*a*a*a*a*a*a*a*a*b'), false, 'no backtracking blow-up')
})

t.test('namespaces="..." of allowed_signers: the in-process check agrees with ssh-keygen -Y verify, negation included', async t => {
  const dir = tempDir(t)
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'ci', '-f', path.join(dir, 'ci')])
  const ci = fs.readFileSync(path.join(dir, 'ci.pub'), 'utf8').trim()
  const payload = Buffer.from('tree 0123\n\nevaluation: validation 8/16\n')
  const sig = path.join(dir, 'sig')
  fs.writeFileSync(sig, execFileSync('ssh-keygen', ['-Y', 'sign', '-f', path.join(dir, 'ci'), '-n', 'git'], {input: payload, stdio: ['pipe', 'pipe', 'ignore']}))
  for (const namespaces of ['git', '!git,*', '*,!git', 'file,git', 'g*', '!file,git', '!g?t,*', 'file', '!file']) {
    const line = `ci@exp namespaces="${namespaces}" ${ci}\n`
    const file = path.join(dir, 'allowed')
    fs.writeFileSync(file, line)
    let keygen = true
    try {
      execFileSync('ssh-keygen', ['-Y', 'verify', '-f', file, '-I', 'ci@exp', '-n', 'git', '-s', sig], {input: payload, stdio: ['pipe', 'ignore', 'ignore']})
    } catch {
      keygen = false
    }
    const ours = verifySshSig(fs.readFileSync(sig, 'utf8'), payload, parseAllowedSigners(line)!, NOW)
    t.equal(Boolean(ours?.principals), keygen, `namespaces="${namespaces}": ${keygen ? 'accepted' : 'refused'} by both (${ours?.reason ?? ours?.principals?.join()})`)
  }
})
