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
    t.same(await check(`valid-before="${stamp(time)}"`), {principals: ['ci@exp']}, 'retired after it signed (to the second): still good')
    t.same(await check(`namespaces="git",valid-after="${stamp(time - 86400)}",valid-before="${stamp(time + 1)}"`), {principals: ['ci@exp']}, 'inside its window, options in one list')
    t.match(await check(`valid-before="${stamp(time - 1)}"`), {reason: /expired/}, 'retired before it signed')
    t.match(await check(`valid-after="${stamp(time + 1)}"`), {reason: /not yet valid/}, 'not valid yet when it signed')
    if (type === 'ed25519') {
      t.match(await check(`valid-before="${stamp(time - 1)}"`), {reason: new RegExp(`ci@exp's key SHA256:\\S+, expired in allowed_signers \\(valid-before="${stamp(time - 1)}"\\) before the commit's time 2025-06-01T00:00:00.000Z`)}, 'the reason names the key and its limit')
    }
  })
}

for (const type of ['ed25519', 'rsa']) {
  t.test(`${type}: every principal of every line of the key counts, and a negation refuses as ssh-keygen's does`, async t => {
    const dir = tempDir(t)
    const pub = key(dir, 'ci', type)
    const other = key(dir, 'other', 'ed25519')
    const time = Date.UTC(2025, 5, 1) / 1000
    const commit = signedCommit(dir, 'ci', time)
    const check = async (allowed: string) => {
      const v = new SignatureVerifier(allowed)
      try {
        return await v.verify('c1', commit)
      } finally {
        await v.close()
      }
    }
    // what ssh-keygen -Y verify -I says for one identity (git asks it so)
    const keygen = (allowed: string, identity: string) => {
      const file = path.join(dir, 'allowed')
      fs.writeFileSync(file, allowed)
      const sig = path.join(dir, 'sig')
      fs.writeFileSync(sig, execFileSync('ssh-keygen', ['-Y', 'sign', '-f', path.join(dir, 'ci'), '-n', 'git'], {input: 'x', stdio: ['pipe', 'pipe', 'ignore']}))
      try {
        execFileSync('ssh-keygen', ['-Y', 'verify', '-f', file, '-I', identity, '-n', 'git', '-s', sig], {input: 'x', stdio: ['pipe', 'ignore', 'ignore']})
        return true
      } catch {
        return false
      }
    }
    t.same(await check(`ops@exp,ci@exp ${pub}\n`), {principals: ['ops@exp', 'ci@exp']}, 'several principals on one line: all of them, not the first')
    t.same(await check(`ops@exp ${pub}\nci@exp namespaces="git" ${pub}\n`), {principals: ['ops@exp', 'ci@exp']}, 'one key on two lines: both')
    t.same(await check(`ops@exp namespaces="file" ${pub}\nci@exp ${pub}\n`), {principals: ['ci@exp']}, 'a line that may not sign for git adds nothing')
    t.same(await check(`*@exp ${pub}\n`), {principals: ['*@exp']}, 'a pattern is kept as written (it names no identity)')
    t.same(await check(`*@exp,!ci@exp ${pub}\n`), {principals: ['*@exp']})
    const negated = `ci@exp,!ci@exp ${pub}\n`
    t.match(await check(negated), {reason: /names no principal it may sign as/}, 'a principal its own line negates is refused')
    t.equal(keygen(negated, 'ci@exp'), false, '... as ssh-keygen -Y verify refuses it')
    t.equal(keygen(`ops@exp,ci@exp ${pub}\n`, 'ci@exp'), true, 'and ssh-keygen takes the second principal of a line')
    // a file with an option this code leaves to ssh-keygen: ssh-keygen finds the principals
    t.same(await check(`ops@exp,ci@exp,!ops@exp ${pub}\nca@exp cert-authority ${other}\n`), {principals: ['ci@exp']}, 'through ssh-keygen find-principals: the same reading')
  })
}

t.test('a verdict is reached once per process for a commit and an allowed-signers text', async t => {
  // an RSA signature costs an ssh-keygen run; a process that builds several authorities (a
  // research loop) asks again for every record: the second verifier must not run it
  const dir = tempDir(t)
  const pub = key(dir, 'ci', 'rsa')
  const commit = signedCommit(dir, 'ci', Date.UTC(2025, 5, 1) / 1000)
  const allowed = `ci@exp ${pub}\n`
  const once = async (text: string) => {
    const v = new SignatureVerifier(text)
    try {
      return await v.verify('cached-commit', commit)
    } finally {
      await v.close()
    }
  }
  t.same(await once(allowed), {principals: ['ci@exp']})
  const PATH = process.env.PATH
  process.env.PATH = dir // no ssh-keygen here
  try {
    t.same(await once(allowed), {principals: ['ci@exp']}, 'the same text: no ssh-keygen run')
    await t.rejects(once(`# another file\n${allowed}`), /cannot run ssh-keygen/, 'another text is checked afresh')
  } finally {
    process.env.PATH = PATH
  }
})
