import {execFile} from 'node:child_process'
import {existsSync} from 'node:fs'
import path from 'node:path'
import {promisify} from 'node:util'
import t from 'tap'
import {FIXTURES, ROOT} from '../helpers/skills.js'

// the real binary over the compiled commands: `npx tsc -p tsconfig.json` runs before the tests
const BIN = path.join(ROOT, 'bin/run.js')
if (!existsSync(path.join(ROOT, 'dist/commands/skills/lint.js'))) throw new Error('dist/ is missing: run `npx tsc -p tsconfig.json` first')

async function exp(cwd: string, ...args: string[]) {
  try {
    const {stdout, stderr} = await promisify(execFile)('node', [BIN, ...args], {cwd, env: {...process.env, NO_COLOR: '1'}})
    return {code: 0, stdout, stderr}
  } catch (e) {
    const err = e as {code: number; stdout: string; stderr: string}
    return {code: err.code, stdout: err.stdout, stderr: err.stderr}
  }
}

// each run starts oclif (~1.5 s): start them all at once, each test awaits its own
const runs = {
  clean: exp(path.join(FIXTURES, 'valid'), 'skills', 'lint'),
  text: exp(path.join(FIXTURES, 'invalid'), 'skills', 'lint', 'skills/onboarding-v2', 'skills/procurement'),
  json: exp(FIXTURES, 'skills', 'lint', '--json', '-C', path.join(FIXTURES, 'invalid')),
  missing: exp(path.join(FIXTURES, 'valid'), 'skills', 'lint', 'skills/nope'),
}

t.test('a clean skills/ folder exits 0', async t => {
  const r = await runs.clean
  t.equal(r.code, 0)
  t.equal(r.stdout, '1 skill ok\n')
})

t.test('problems print as file:line: [rule] message and exit 1', async t => {
  const r = await runs.text
  t.equal(r.code, 1)
  const lines = r.stdout.trimEnd().split('\n')
  t.same(lines.slice(0, 3), [
    "skills/onboarding-v2/SKILL.md:2: [name/folder] Directory name 'onboarding-v2' must match skill name 'onboarding'",
    'skills/onboarding-v2/SKILL.md:3: [description/angle-brackets] `description` must not contain `<` or `>`',
    'skills/onboarding-v2/SKILL.md:4: [frontmatter/unknown-key] Unexpected fields in frontmatter: version. Only allowed-tools, compatibility, description, license, metadata, name are allowed.',
  ])
  t.ok(lines.includes('skills/procurement/SKILL.md: [section/missing] missing section "## Failure handling"'), 'no line when there is none')
  t.ok(lines.some(l => l.startsWith('skills/procurement/PURPOSE.yaml:4: [purpose/yaml] invalid YAML:')))
  t.equal(lines.at(-1), '8 problems in 2 skills')
})

t.test('--json prints the structured report, with the same exit status; -C sets the folder', async t => {
  const r = await runs.json
  t.equal(r.code, 1)
  const report = JSON.parse(r.stdout)
  t.match(report, {ok: false, problems: 10})
  t.same(report.skills.map((s: {name: string}) => s.name), ['empty', 'onboarding-v2', 'procurement'])
  t.match(report.skills[2].problems[2], {file: 'skills/procurement/PURPOSE.yaml', line: 4, column: 1, rule: 'purpose/yaml'})
})

t.test('a missing path is an error with a hint, exit 3', async t => {
  const r = await runs.missing
  t.equal(r.code, 3)
  t.match(r.stderr, /^error: unknown path: skills\/nope\nhint: /)
})
