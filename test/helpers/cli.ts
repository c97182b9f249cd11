import {spawn} from 'node:child_process'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {GIT_ENV, node} from './repo.js'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
export const BIN = path.join(ROOT, 'bin', 'run.js')

export interface CliResult {
  code: number
  stdout: string
  stderr: string
}

/** Run the built CLI (bin/run.js over dist/) as a real child process. */
export function exp(args: string[], opts: {cwd: string; input?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(...node([BIN, ...args]), {cwd: opts.cwd, env: {...GIT_ENV, ...opts.env}})
    let stdout = ''
    let stderr = ''
    // a command that must end: killed after timeoutMs, and the result says so
    const timer = opts.timeoutMs ? setTimeout(() => ((stderr += `\n[killed after ${opts.timeoutMs} ms]`), child.kill('SIGKILL')), opts.timeoutMs) : undefined
    child.stdout.on('data', d => (stdout += d))
    child.stderr.on('data', d => (stderr += d))
    child.on('error', reject)
    child.on('close', code => (clearTimeout(timer), resolve({code: code ?? 1, stdout, stderr})))
    child.stdin.end(opts.input ?? '')
  })
}

export async function expJson<T = unknown>(args: string[], opts: {cwd: string; input?: string; env?: NodeJS.ProcessEnv}): Promise<T> {
  const r = await exp([...args, '--json'], opts)
  if (r.code !== 0) throw new Error(`exp ${args.join(' ')} exited ${r.code}: ${r.stderr}`)
  return JSON.parse(r.stdout) as T
}
