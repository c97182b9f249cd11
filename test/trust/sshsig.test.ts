import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {execFileSync} from 'node:child_process'
import {tempDir} from '../helpers/repo.js'
import {parseAllowedSigners, verifySshSig} from '../../src/trust/sshsig.js'

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
  t.same(verifySshSig(sign('ci', payload), Buffer.from(payload), allowed), {principal: 'ci@exp'})
  t.match(verifySshSig(sign('ci', payload), Buffer.from(`${payload}x`), allowed), {reason: /does not verify/}, 'changed payload')
  t.match(verifySshSig(sign('other', payload), Buffer.from(payload), allowed), {reason: /not in the allowed signers/}, 'another key')
  t.match(verifySshSig(sign('ci', payload, 'file'), Buffer.from(payload), allowed), {reason: /namespace file/}, 'another namespace')
  t.equal(verifySshSig(sign('rsa', payload), Buffer.from(payload), allowed), undefined, 'RSA: left to ssh-keygen')
  const armored = sign('ci', payload)
  const lines = armored.split('\n')
  // a character in the middle of the last full line: inside the signature bytes
  const i = lines.length - 4
  lines[i] = lines[i]!.slice(0, 30) + (lines[i]![30] === 'A' ? 'B' : 'A') + lines[i]!.slice(31)
  const broken = lines.join('\n')
  t.ok(verifySshSig(broken, Buffer.from(payload), allowed)?.reason, 'a damaged signature is refused')
  t.equal(parseAllowedSigners(`ci@exp cert-authority ${ci}\n`), undefined, 'options it does not read: left to ssh-keygen')
  void other
})
