import {spawn, type ChildProcess} from 'node:child_process'
import path from 'node:path'
import {ROOT} from './cli.js'
import {GIT_ENV, node} from './repo.js'

export const APPENDER = path.join(ROOT, 'test/fixtures/bin/appender.mjs')

export interface Appender {
  child: ChildProcess
  acked: string[]
  done: Promise<number | null>
  ready: Promise<void>
}

/** Start a real appender child process; `acked` fills with ids whose append returned. */
export function startAppender(repo: string, lane: string, count: number, prefix: string, batch = 1): Appender {
  const child = spawn(...node([APPENDER, repo, lane, String(count), prefix, String(batch)]), {env: GIT_ENV, stdio: ['ignore', 'pipe', 'pipe']})
  const acked: string[] = []
  let buf = ''
  let onReady: () => void = () => undefined
  const ready = new Promise<void>(r => (onReady = r))
  let stderr = ''
  child.stderr!.on('data', d => (stderr += d))
  child.stdout!.on('data', (d: Buffer) => {
    buf += d.toString()
    let nl
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl)
      buf = buf.slice(nl + 1)
      if (line === 'ready') onReady()
      else if (line.startsWith('ok ')) acked.push(line.slice(3))
    }
  })
  const done = new Promise<number | null>(resolve => child.on('close', code => {
    onReady()
    if (code && code !== 0 && child.signalCode === null) process.stderr.write(`appender ${lane} failed: ${stderr}\n`)
    resolve(code)
  }))
  return {child, acked, done, ready}
}
