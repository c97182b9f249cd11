import {execFile} from 'node:child_process'
import os from 'node:os'

const cache = new Map<string, Promise<string>>()

function version(program: string, args: string[]): Promise<string> {
  const key = `${program} ${args.join(' ')}`
  let hit = cache.get(key)
  if (!hit) {
    hit = new Promise(resolve => {
      execFile(program, args, {timeout: 5000}, (err, stdout, stderr) => resolve(err ? 'unavailable' : `${stdout}${stderr}`.trim().split('\n')[0]!.slice(0, 200)))
    })
    cache.set(key, hit)
  }
  return hit
}

/** What an observation pins of the machine it ran on: node, OS, git and the command's interpreter. */
export async function environmentFingerprint(program: string | undefined): Promise<Record<string, string>> {
  const out: Record<string, string> = {node: process.version, os: `${os.platform()} ${os.release()} ${os.arch()}`, git: await version('git', ['--version'])}
  if (program && /^(python3?|node|bash|sh|ruby|perl|Rscript|julia)$/.test(program.split('/').pop()!)) out.interpreter = `${program}: ${await version(program, ['--version'])}`
  return out
}
