import t from 'tap'
import path from 'node:path'
import ScenariosLint from '../../src/commands/scenarios/lint.js'
import ScenariosList from '../../src/commands/scenarios/list.js'
import {mkdtemp, rm, symlink, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {formatProblem, lintLoaded, lintScenarios, parseScenario} from '../../src/scenarios/index.js'
import {builtinScenarios, ROOT, SCENARIO_DIR} from '../helpers/scenarios.js'

const GOOD = `id: ok-one
split: train
workflows: [onboarding]
description: A minimal scenario.
task: |
  Please mark Noah Fischer's onboarding complete.
initial:
  fixture: acme
scope:
  employees: [E-1051]
invariants:
  - {id: done, path: workflows.WF-1051.status, equals: completed}
gold:
  - {tool: complete_onboarding, arguments: {workflow_id: WF-1051}}
`
const lint = (text: string, file = 'ok-one.yaml') => lintLoaded([parseScenario(text, file)]).map(formatProblem)

t.test('a minimal valid scenario has no problems', async t => {
  t.same(lint(GOOD), [])
})

t.test('YAML syntax errors are reported with file, line and column', async t => {
  const [p] = lint(GOOD.replace('workflows: [onboarding]', 'workflows: [onboarding'))
  t.match(p, /^ok-one\.yaml:\d+:\d+: YAML: /)
})

t.test('a lone UTF-16 surrogate in a scenario is a YAML problem at its line and column (its traces would hold it)', async t => {
  const [p, ...rest] = lint(GOOD.replace("Please mark Noah Fischer's onboarding complete.", '"Please mark Noah\\ud800 done."').replace('task: |', 'task:'))
  t.match(p, /^ok-one\.yaml:5:1: YAML: \$\.task: a lone UTF-16 surrogate \(\\ud800\) is not a character/)
  t.same(rest, [])
  t.same(lint(GOOD.replace("Noah Fischer's", 'Noah \u{1f680} Fischer')), [], 'a character beyond U+FFFF is fine')
})

t.test('schema errors point at the offending line', async t => {
  t.same(lint(GOOD.replace('split: train', 'split: trian')), ['ok-one.yaml:2: must be one of: train, validation, holdout'])
  t.same(lint(GOOD.replace('scope:\n', 'scope:\n  colour: red\n')), ['ok-one.yaml:10: unknown field "colour"'])
  t.same(lint(GOOD.replace(', equals: completed}', '}')), ['ok-one.yaml:12: needs one of the fields: equals, not_equals, one_of, exists, contains, not_contains, min, max'])
  t.same(lint(GOOD.replace('gold:\n  - {tool: complete_onboarding, arguments: {workflow_id: WF-1051}}\n', '')), ['ok-one.yaml:1: missing required field "gold"'])
  t.same(lint(`${GOOD}constraints:\n  - {id: two, never: escalate, called: escalate}\n`), ['ok-one.yaml:16: must have exactly one constraint form (before, never, called, max_calls, max_errors)'])
})

t.test('semantic problems: file name, unknown tools, bad override paths, malformed state, missing scope employees', async t => {
  t.same(lint(GOOD, 'other.yaml'), ['other.yaml:1: id "ok-one" does not match the file name "other"'])
  t.same(lint(GOOD.replace('tool: complete_onboarding', 'tool: finish_onboarding')), ['ok-one.yaml:14: unknown tool "finish_onboarding"'])
  t.same(lint(GOOD.replace('  fixture: acme\n', '  fixture: acme\n  set:\n    employes.E-1051.role: x\n')), ['ok-one.yaml:10: set employes.E-1051.role: "employes" is not an object or list in the state'])
  t.same(lint(GOOD.replace('  fixture: acme\n', '  fixture: acme\n  set:\n    employees.E-1051.pendng_info: []\n')), ['ok-one.yaml:10: initial state: employees.E-1051.pendng_info is not a field of this record'])
  t.same(lint(GOOD.replace('fixture: acme', 'fixture: globex')), ['ok-one.yaml:8: unknown fixture "globex" (known: acme)'])
  t.same(lint(GOOD.replace('employees: [E-1051]', 'employees: [E-1051, E-4242]')), ['ok-one.yaml:10: scope employee E-4242 does not exist in the initial state'])
  t.same(lint(GOOD.replace('path: workflows.WF-1051.status', 'path: flows.WF-1051.status')).length, 2, 'an unknown root, and the gold then fails it')
})

t.test('prototype keys in invariant paths, override paths and merged objects are refused at their line', async t => {
  // before, each passed: `settings.constructor` exists on every object, so the invariant always held
  t.same(lint(GOOD.replace('  - {id: done, path: workflows.WF-1051.status, equals: completed}\n', '  - {id: done, path: workflows.WF-1051.status, equals: completed}\n  - {id: always, path: settings.constructor, exists: true}\n')), ['ok-one.yaml:13: path "settings.constructor" names "constructor", which is not state but every object\'s prototype: an invariant on it always holds, a merge through it changes what an object inherits; use a real field'])
  t.match(lint(GOOD.replace('  - {id: done, path: workflows.WF-1051.status, equals: completed}\n', '  - {id: done, path: workflows.WF-1051.status, equals: completed}\n  - {id: p, path: settings.__proto__, exists: true}\n')), [/^ok-one\.yaml:13: path "settings\.__proto__" names "__proto__"/])
  t.match(lint(GOOD.replace('  fixture: acme\n', '  fixture: acme\n  merge:\n    settings:\n      __proto__: {enforce: {ticket_dedupe: true}}\n')), [/^ok-one\.yaml:11: merge object names "__proto__"/])
  t.match(lint(GOOD.replace('  fixture: acme\n', '  fixture: acme\n  set: {employees.E-1051.prototype: 1}\n')), [/^ok-one\.yaml:9: set path "employees\.E-1051\.prototype" names "prototype"/])
  t.match(lint(GOOD.replace('  - {id: done, path: workflows.WF-1051.status, equals: completed}\n', '  - {id: done, path: workflows.WF-1051.status, equals: completed}\n  - id: n\n    none_of:\n    - {id: c, collection: tickets, where: {constructor.name: Object}, count: 0}\n')), [/^ok-one\.yaml:15: where key "constructor\.name" names "constructor"/])
})

t.test('a gold trajectory that fails a call, an invariant, the scope or a constraint is a problem at that line', async t => {
  t.same(lint(GOOD.replace('workflow_id: WF-1051', 'workflow_id: WF-1050').replace('E-1051]', 'E-1051, E-1050]')), [
    'ok-one.yaml:12: gold trajectory fails invariant done: workflows.WF-1051.status should equals "completed", but is "open"',
  ])
  t.same(lint(GOOD.replace('workflow_id: WF-1051', 'workflow_id: WF-9999')), [
    'ok-one.yaml:14: gold call complete_onboarding fails: NOT_FOUND no workflow WF-9999',
    'ok-one.yaml:12: gold trajectory fails invariant done: workflows.WF-1051.status should equals "completed", but is "open"',
  ])
  t.same(lint(GOOD.replace('employees: [E-1051]', 'employees: []')), [
    'ok-one.yaml:9: gold trajectory causes collateral damage: employees.E-1051 changed for E-1051, who is outside the task\'s scope',
    'ok-one.yaml:9: gold trajectory causes collateral damage: workflows.WF-1051 changed for E-1051, who is outside the task\'s scope',
  ])
  t.same(lint(`${GOOD}constraints:\n  - {id: look-first, before: {first: get_workflow, then: complete_onboarding}}\n`), [
    'ok-one.yaml:16: gold trajectory violates look-first: complete_onboarding (call #0) was not preceded by get_workflow',
  ])
})

t.test('a folder is linted file by file, and duplicate ids are caught', async t => {
  const dir = await mkdtemp(path.join(tmpdir(), 'exp-scenarios-'))
  await writeFile(path.join(dir, 'ok-one.yaml'), GOOD)
  await writeFile(path.join(dir, 'ok-two.yaml'), GOOD)
  await writeFile(path.join(dir, 'notes.txt'), 'not a scenario')
  await writeFile(path.join(dir, 'ok-one.yml'), GOOD)
  const r = await lintScenarios(dir)
  t.same([r.files, r.scenarios], [3, 1], 'only the first file of an id, named by it, is a scenario')
  t.same(r.problems.map(p => `${path.basename(p.file)}:${p.line}: ${p.message}`), [
    `ok-one.yml:1: id "ok-one" is already used by ${path.join(dir, 'ok-one.yaml')}`,
    'ok-two.yaml:1: id "ok-one" does not match the file name "ok-two"',
    `ok-two.yaml:1: id "ok-one" is already used by ${path.join(dir, 'ok-one.yaml')}`,
  ])
})

t.test('a scenario file that is a symbolic link is a problem, not a scenario: the tree id a run pins holds the link, not its target', async t => {
  const dir = await mkdtemp(path.join(tmpdir(), 'exp-scenarios-'))
  const elsewhere = await mkdtemp(path.join(tmpdir(), 'exp-shared-'))
  t.teardown(() => Promise.all([rm(dir, {recursive: true, force: true}), rm(elsewhere, {recursive: true, force: true})]))
  await writeFile(path.join(elsewhere, 'ok-one.yaml'), GOOD)
  await symlink(path.join(elsewhere, 'ok-one.yaml'), path.join(dir, 'ok-one.yaml'))
  const r = await lintScenarios(dir)
  t.same([r.files, r.scenarios], [1, 0])
  t.match(r.problems.map(p => `${path.basename(p.file)}:${p.line}: ${p.message}`), [/^ok-one\.yaml:1: is a symbolic link: a run pins its scenarios by their folder's git tree id, which holds the link, not the file it points to/])
})

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
  const n = (await builtinScenarios()).length
  t.match(ok.stdout, new RegExp(`${n} scenario\\(s\\) in ${n} file\\(s\\): no problems`))
  const dir = await mkdtemp(path.join(tmpdir(), 'exp-lint-cli-'))
  await writeFile(path.join(dir, 'broken.yaml'), 'id: broken\nsplit: somewhere\n')
  await writeFile(path.join(dir, 'syntax.yaml'), 'id: syntax\nsplit: [train\n')
  // as skills lint and contract lint: problems and a summary on stdout, exit 1, the report itself with --json
  const bad = await run(ScenariosLint, [dir])
  t.equal(bad.exit, 1)
  t.match(bad.stdout, /broken\.yaml:2: must be one of: train, validation, holdout/)
  t.match(bad.stdout, /\d+ problem\(s\) in 2 of 2 scenario file\(s\)/)
  const json = await run(ScenariosLint, [dir, '--json'])
  t.equal(json.exit, 1)
  const report = JSON.parse(json.stdout)
  t.notOk('error' in report)
  t.match(report, {dir, files: 2, scenarios: 0})
  t.ok(report.problems.some((p: {file: string; line: number; message: string}) => p.file.endsWith('broken.yaml') && p.line === 2 && /must be one of/.test(p.message)), 'every problem, at the top level')
  t.ok(report.problems.some((p: {file: string; column?: number}) => p.file.endsWith('syntax.yaml') && typeof p.column === 'number'), 'a YAML error has its column, under the name jsonOutput documents')
  // a folder with nothing to lint is a mistake (a CI step that checked nothing), not "no problems"
  const empty = await mkdtemp(path.join(tmpdir(), 'exp-lint-empty-'))
  await writeFile(path.join(empty, 'README.md'), 'not a scenario\n')
  const none = await run(ScenariosLint, [empty, '--json'])
  t.equal(none.exit, 3)
  t.equal(JSON.parse(none.stdout).error.code, 'E_NOT_FOUND')
  t.match(JSON.parse(none.stdout).error.message, /holds no \*\.yaml scenario files/)
})

t.test('exp scenarios list renders groups, and --json returns the same listing', async t => {
  const text = await run(ScenariosList, ['--dir', SCENARIO_DIR, '--split', 'holdout'])
  t.match(text.stdout, /^holdout \(\d+\)\n {2}access \(\d+\): /)
  const json = await run(ScenariosList, ['--dir', SCENARIO_DIR, '--tag', 'offboarding', '--json'])
  const listing = JSON.parse(json.stdout)
  t.same(Object.keys(listing.groups), ['train', 'validation', 'holdout'])
  t.ok(listing.scenarios.every((s: {workflows: string[]}) => s.workflows.includes('offboarding')))
})

t.test('order, exactly_one_of and none_of: checked by the schema, their paths by the linter, and replayed with the gold', async t => {
  const inv = (yaml: string) => GOOD.replace("  - {id: done, path: workflows.WF-1051.status, equals: completed}", yaml)
  const order = `  - id: closed-after-start
    order:
      first: {path: employees.E-1051.start_date}
      then: {path: workflows.WF-1051.completed_at}
  - id: one-way
    exactly_one_of:
    - {id: done, path: workflows.WF-1051.status, equals: completed}
    - {id: open, path: workflows.WF-1051.status, equals: open}
  - id: nothing-else
    none_of:
    - {id: ticket, collection: tickets, where: {employee: E-1051}, count: {min: 1}}`
  t.same(lint(inv(order)), [], 'a well-formed set that the gold trajectory satisfies')
  const COLS = 'settings, seq, departments, employees, devices, assignments, systems, access, approvals, tickets, procurement, workflows, escalations, denials, documents, policies'
  const misspelt = lint(inv(order.replace('then: {path: workflows.WF-1051.completed_at}', 'then: {path: wrkflows.WF-1051.completed_at}')))
  t.ok(misspelt.includes(`ok-one.yaml:15: "wrkflows.WF-1051.completed_at" does not start with a state collection (${COLS})`), 'a nested order path, at its line')
  t.match(misspelt.join('\n'), /ok-one\.yaml:12: gold trajectory fails invariant closed-after-start: .* never happened/)
  t.same(lint(inv(order.replace('collection: tickets', 'collection: tickts'))), [`ok-one.yaml:22: "tickts" does not start with a state collection (${COLS})`], 'a collection inside none_of')
  t.match(lint(inv(order.replace("- {id: open, path: workflows.WF-1051.status, equals: open}", "- {id: also, path: workflows.WF-1051.type, equals: onboarding}"))), [/gold trajectory fails invariant one-way: exactly one of done, also should hold, but done and also do/])
  t.ok(lint(inv(order.replace('exactly_one_of:', 'exactly_one_off:'))).includes('ok-one.yaml:17: unknown field "exactly_one_off"'))
  t.match(lint(inv(`  - {id: o, order: {first: {path: employees.E-1051.start_date}}}`)), [/missing required field "then"/])
})

t.test('a credential in a scenario is its file\'s problem, at its line, without the value: every run would record it', async t => {
  const token = `ghp_${'a1B2'.repeat(9)}`
  const [p, more] = lint(GOOD.replace("onboarding complete.", `onboarding complete; her old token ${token} is revoked.`))
  t.match(p, /^ok-one\.yaml:5: task holds a GitHub token: .*placeholder/)
  t.notMatch(p, token)
  t.equal(more, undefined)
  const [q] = lint(GOOD.replace('{workflow_id: WF-1051}', '{workflow_id: WF-1051, note: "postgres://admin:hunter22@db/x"}'))
  t.match(q, /^ok-one\.yaml:\d+: gold\[0\]\.arguments\.note holds credentials in a URL/)
  t.notMatch(q, 'hunter22')
})
