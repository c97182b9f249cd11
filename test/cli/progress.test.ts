import t from 'tap'
import {execFile} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import {BIN, exp} from '../helpers/cli.js'
import {exampleRepo} from '../helpers/evolve.js'
import {GIT_ENV, node, tempDir} from '../helpers/repo.js'

/**
 * exp with its stderr on a terminal (a pseudo-terminal from util-linux `script`) and its
 * stdout in a file: what a user sees on the terminal while `--json > out.json` is written.
 */
function withTerminal(args: string[], cwd: string, out: string): Promise<{code: number; terminal: string}> {
  const [cmd, argv] = node([BIN, ...args])
  const line = [cmd, ...argv].map(a => `'${a.replaceAll("'", "'\\''")}'`).join(' ')
  return new Promise(resolve => {
    execFile('script', ['-qec', `${line} > '${out}'`, '/dev/null'], {cwd, env: GIT_ENV, maxBuffer: 16 * 1024 * 1024}, (err, stdout) => resolve({code: err ? ((err as {code?: number}).code ?? 1) : 0, terminal: stdout}))
  })
}

t.test('long commands: progress on a terminal\'s stderr, nothing in a pipe, and --json output never mixed with it', async t => {
  const repo = await exampleRepo(t)
  const dir = tempDir(t)
  const piped = await exp(['run', 'train', '--repeat', '1', '--lane', 'p', '--json'], {cwd: repo})
  t.equal(piped.code, 0, piped.stderr)
  t.equal(piped.stderr, '', 'no progress when stderr is a pipe')
  const total = (JSON.parse(piped.stdout) as {total: number}).total
  t.ok(total > 0)

  const run = await withTerminal(['run', 'train', '--repeat', '1', '--lane', 'q', '--json'], repo, path.join(dir, 'run.json'))
  t.equal(run.code, 0, run.terminal)
  t.match(run.terminal, new RegExp(`run train \\[=+\\] ${total}/${total} passed \\d+`), 'a progress bar on the terminal')
  t.equal((JSON.parse(fs.readFileSync(path.join(dir, 'run.json'), 'utf8')) as {total: number}).total, total, 'stdout is the JSON alone')

  const evolve = await withTerminal(['evolve', '-n', '1', '--train-repeat', '1', '--eval-repeat', '1', '--lane', 'e', '--json'], repo, path.join(dir, 'evolve.json'))
  t.equal(evolve.code, 0, evolve.terminal)
  t.match(evolve.terminal, /iteration 1: train/, 'evolve shows its step on the terminal')
  const res = JSON.parse(fs.readFileSync(path.join(dir, 'evolve.json'), 'utf8')) as {iterations: unknown[]}
  t.equal(res.iterations.length, 1, 'and its JSON is whole')
})
