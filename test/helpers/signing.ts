import type {Test} from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {execFileSync} from 'node:child_process'
import {git} from './repo.js'
import {onboardingOnCommit} from './gate-fixtures.js'

/** A real SSH key pair made by ssh-keygen in a temp folder. */
export function keypair(dir: string, name: string): {key: string; pub: string} {
  const key = path.join(dir, name)
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', key])
  return {key, pub: fs.readFileSync(`${key}.pub`, 'utf8').trim()}
}

/** A repository of the built-in example whose policy requires evidence signed by ci@exp (allowed: these principals and keys). */
export async function signedPolicyRepo(t: Test, allowed: [string, string][]): Promise<string> {
  // (exp init --example onboarding in a repository makeRepo made: run once, copied per test)
  const {repo: a, init} = await onboardingOnCommit(t)
  t.equal(init.code, 0)
  fs.writeFileSync(path.join(a, '.research/allowed_signers'), allowed.map(([who, pub]) => `${who} namespaces="git" ${pub}\n`).join(''))
  const policy = path.join(a, '.research/policy.yaml')
  fs.writeFileSync(policy, fs.readFileSync(policy, 'utf8').replace('require_signed_evidence: false', 'require_signed_evidence: true\n  signers: [ci@exp]'))
  await git(a, 'add', '.research')
  await git(a, 'commit', '-qm', 'evidence must be signed by CI')
  return a
}
