import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {execFileSync} from 'node:child_process'
import {tempDir} from '../helpers/repo.js'
import {SignatureVerifier, signatureHeader} from '../../src/trust/ssh.js'

// SignatureVerifier over commits made here and signed by ssh-keygen: ed25519 keys are checked
// in process, RSA keys through ssh-keygen; both must give git's verdict.

/** A key of `type` made by ssh-keygen, and its public line. */
function key(dir: string, name: string, type: string): string {
  execFileSync('ssh-keygen', ['-q', '-t', type, ...(type === 'rsa' ? ['-b', '2048'] : []), '-N', '', '-C', name, '-f', path.join(dir, name)])
  return fs.readFileSync(path.join(dir, `${name}.pub`), 'utf8').split(' ').slice(0, 2).join(' ')
}

/** A commit object committed at `time` (seconds) and signed as git signs one. */
function signedCommit(dir: string, name: string, time: number): Buffer {
  const payload = `tree ${'4b825dc642cb6eb9a060e54bf8d69288fbee4904'}\nauthor ci <ci@exp> ${time} +0000\ncommitter ci <ci@exp> ${time} +0000\n\nevaluation\n`
  const sig = execFileSync('ssh-keygen', ['-Y', 'sign', '-f', path.join(dir, name), '-n', 'git'], {input: payload, stdio: ['pipe', 'pipe', 'ignore']}).toString().trim()
  const [head, body] = payload.split('\n\n') as [string, string]
  return Buffer.from(`${head}\n${signatureHeader(sig)}\n\n${body}`)
}

/** ssh-keygen's time format, in UTC. */
const stamp = (seconds: number) => `${new Date(seconds * 1000).toISOString().replace(/[-:T]|\.\d+/g, '')}`

for (const type of ['ed25519', 'rsa']) {
  t.test(`${type}: valid-before and valid-after are checked at the commit's time, as git does`, async t => {
    const dir = tempDir(t)
    const pub = key(dir, 'ci', type)
    // a commit of 2025, verified now: the key was retired since, the commit stays good
    const time = Date.UTC(2025, 5, 1) / 1000
    const commit = signedCommit(dir, 'ci', time)
    const check = async (options: string) => {
      const v = new SignatureVerifier(`ci@exp ${options} ${pub}\n`)
      try {
        return await v.verify('c1', commit)
      } finally {
        await v.close()
      }
    }
    t.same(await check(`valid-before="${stamp(time)}"`), {principal: 'ci@exp'}, 'retired after it signed (to the second): still good')
    t.same(await check(`namespaces="git",valid-after="${stamp(time - 86400)}",valid-before="${stamp(time + 1)}"`), {principal: 'ci@exp'}, 'inside its window, options in one list')
    t.match(await check(`valid-before="${stamp(time - 1)}"`), {reason: /expired/}, 'retired before it signed')
    t.match(await check(`valid-after="${stamp(time + 1)}"`), {reason: /not yet valid/}, 'not valid yet when it signed')
    if (type === 'ed25519') {
      t.match(await check(`valid-before="${stamp(time - 1)}"`), {reason: new RegExp(`ci@exp's key SHA256:\\S+, expired in allowed_signers \\(valid-before="${stamp(time - 1)}"\\) before the commit's time 2025-06-01T00:00:00.000Z`)}, 'the reason names the key and its limit')
    }
  })
}
