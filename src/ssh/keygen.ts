import {spawn} from 'node:child_process'
import {ExpError} from '../errors/index.js'

/** The one seam to OpenSSH's ssh-keygen (git's SSH signing uses it too): sign and verify with `-Y`. */
export function sshKeygen(args: string[], input: Buffer | string): Promise<{code: number; stdout: string; stderr: string}> {
  return new Promise((resolve, reject) => {
    const child = spawn('ssh-keygen', args, {stdio: ['pipe', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', d => (stdout += d))
    child.stderr.on('data', d => (stderr += d))
    child.on('error', e => reject(new ExpError('E_USAGE', `cannot run ssh-keygen: ${e.message}`, {hint: 'install OpenSSH (ssh-keygen signs and verifies evidence commits)'})))
    child.on('close', code => resolve({code: code ?? 1, stdout, stderr}))
    child.stdin.on('error', () => {})
    child.stdin.end(input)
  })
}
