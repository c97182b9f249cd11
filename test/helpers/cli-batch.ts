import {execFile} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import type {CliResult} from './cli.js'
import {GIT_ENV, node} from './repo.js'

const RUNNER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'cli-batch-runner.mjs')

export interface BatchCase {
  args: string[]
  cwd: string
  env?: NodeJS.ProcessEnv
  /** what the command reads from stdin (`-`); none: an empty stdin */
  input?: string
}

/**
 * Many exp command lines run one after the other in ONE child process (cli-batch-runner.mjs):
 * each through oclif's execute over dist/ as bin/run.js does, with its own folder, environment,
 * stdout, stderr and exit status. For tables of refusals (bad flags, unknown ids, paths inside
 * .git), where what is checked is the command's message, status and that nothing was written,
 * not the process itself: a process per case costs ~1 s of CPU to start and load the command
 * modules, a case here costs its own work. Output goes through the stream (no writev(2) straight
 * to the descriptor), stdin is the case's input. Not for what is about the process (signals,
 * pipes, a terminal, a leading -C that bin/run.js moves): those stay real processes (exp() in cli.ts).
 */
export async function expBatch(cases: readonly BatchCase[]): Promise<CliResult[]> {
  for (const c of cases) if (c.args[0] === '-C' || c.args[0]?.startsWith('--cwd')) throw new Error(`expBatch: a leading ${c.args[0]} is bin/run.js's to move; run it with exp()`)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'exp-cli-batch-'))
  try {
    const casesFile = path.join(dir, 'cases.json')
    const resultsFile = path.join(dir, 'results.json')
    fs.writeFileSync(casesFile, JSON.stringify(cases.map(c => ({args: c.args, cwd: c.cwd, env: c.env ?? {}, input: c.input}))))
    await new Promise<void>((resolve, reject) => {
      execFile(...node([RUNNER, casesFile, resultsFile]), {env: GIT_ENV, maxBuffer: 64 * 1024 * 1024}, (err, _stdout, stderr) => (err ? reject(new Error(`cli-batch-runner failed: ${stderr || err.message}`)) : resolve()))
    })
    const results = JSON.parse(fs.readFileSync(resultsFile, 'utf8')) as CliResult[]
    if (results.length !== cases.length) throw new Error(`cli-batch-runner: ${results.length} results for ${cases.length} cases`)
    return results
  } finally {
    fs.rmSync(dir, {recursive: true, force: true})
  }
}
