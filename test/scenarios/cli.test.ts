import t from 'tap'
import {mkdtemp, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import ScenariosLint from '../../src/commands/scenarios/lint.js'
import ScenariosList from '../../src/commands/scenarios/list.js'
import {ROOT, SCENARIO_DIR} from '../helpers/scenarios.js'

/** Run a command class in-process and capture what it writes. */
async function run(cmd: {run(argv: string[], root: string): Promise<unknown>}, argv: string[]) {
  const out: string[] = []
  const err: string[] = []
  const saved = [process.stdout.write, process.stderr.write, process.exitCode] as const
  process.stdout.write = ((s: string) => out.push(String(s)) > 0) as typeof process.stdout.write
  process.stderr.write = ((s: string) => err.push(String(s)) > 0) as typeof process.stderr.write
  process.exitCode = undefined
  try {
    await cmd.run(argv, ROOT)
    return {stdout: out.join(''), stderr: err.join(''), exit: process.exitCode ?? 0}
  } finally {
    ;[process.stdout.write, process.stderr.write] = [saved[0], saved[1]]
    process.exitCode = saved[2]
  }
}

t.test('exp scenarios lint passes on the built-in set and fails with file:line on a broken file', async t => {
  const ok = await run(ScenariosLint, [SCENARIO_DIR])
  t.equal(ok.exit, 0)
  t.match(ok.stdout, /66 scenario\(s\) in 66 file\(s\): no problems/)
  const dir = await mkdtemp(path.join(tmpdir(), 'exp-lint-cli-'))
  await writeFile(path.join(dir, 'broken.yaml'), 'id: broken\nsplit: somewhere\n')
  const bad = await run(ScenariosLint, [dir])
  t.equal(bad.exit, 2)
  t.match(bad.stdout, /broken\.yaml:2: must be one of: train, validation, holdout/)
  t.match(bad.stderr, /error: \d+ problem\(s\) in 1 of 1 scenario file\(s\)/)
  const json = await run(ScenariosLint, [dir, '--json'])
  t.equal(JSON.parse(json.stdout).error.code, 'E_SCHEMA')
})

t.test('exp scenarios list renders groups, and --json returns the same listing', async t => {
  const text = await run(ScenariosList, ['--dir', SCENARIO_DIR, '--split', 'holdout'])
  t.match(text.stdout, /^holdout \(16\)\n {2}access \(\d+\): /)
  const json = await run(ScenariosList, ['--dir', SCENARIO_DIR, '--tag', 'offboarding', '--json'])
  const listing = JSON.parse(json.stdout)
  t.same(Object.keys(listing.groups), ['train', 'validation', 'holdout'])
  t.ok(listing.scenarios.every((s: {workflows: string[]}) => s.workflows.includes('offboarding')))
})
