import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t, {type Test} from 'tap'
import {lintSkill, lintSkills} from '../../src/skills/index.js'
import {FIXTURES} from '../helpers/skills.js'

const VALID = path.join(FIXTURES, 'valid')

/** A temporary folder holding a copy of the valid onboarding skill; returns it and the copy's SKILL.md. */
function validCopy(t: Test): {dir: string; file: string} {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'exp-lint-'))
  t.teardown(() => fs.rmSync(dir, {recursive: true, force: true}))
  const skill = path.join(dir, 'skills', 'onboarding')
  fs.cpSync(path.join(VALID, 'skills', 'onboarding'), skill, {recursive: true})
  return {dir, file: path.join(skill, 'SKILL.md')}
}
const INVALID = path.join(FIXTURES, 'invalid')

t.test('a valid skill folder has no problems', async t => {
  t.same(await lintSkill('skills/onboarding', {cwd: VALID}), {dir: 'skills/onboarding', name: 'onboarding', problems: []})
})

t.test('without paths, every folder under skills/ is linted, in name order', async t => {
  const report = await lintSkills([], {cwd: INVALID})
  t.equal(report.ok, false)
  t.same(report.skills.map(s => s.name), ['empty', 'onboarding-v2', 'procurement'])
  t.equal(report.problems, report.skills.reduce((n, s) => n + s.problems.length, 0))
  const [empty, v2, proc] = report.skills
  t.same(empty!.problems.map(p => [p.file, p.rule]), [['skills/empty/SKILL.md', 'skill/missing'], ['skills/empty/PURPOSE.yaml', 'purpose/missing']])
  t.same(v2!.problems.map(p => [p.line, p.rule]), [[2, 'name/folder'], [3, 'description/angle-brackets'], [4, 'frontmatter/unknown-key'], [2, 'purpose/schema'], [7, 'purpose/schema']])
  t.same(proc!.problems.map(p => [p.file, p.line, p.rule]), [
    ['skills/procurement/SKILL.md', 11, 'procedure/numbering'],
    ['skills/procurement/SKILL.md', undefined, 'section/missing'],
    ['skills/procurement/PURPOSE.yaml', 4, 'purpose/yaml'],
  ])
})

t.test('paths may be a skill folder, a file in it, or a folder of skills', async t => {
  const names = async (paths: string[]) => (await lintSkills(paths, {cwd: INVALID})).skills.map(s => s.dir)
  t.same(await names(['skills/procurement/SKILL.md', 'skills/procurement']), ['skills/procurement'], 'duplicates collapse')
  t.same(await names(['skills']), ['skills/empty', 'skills/onboarding-v2', 'skills/procurement'])
  t.same(await names([path.join(VALID, 'skills/onboarding')]), [path.relative(INVALID, path.join(VALID, 'skills/onboarding'))], 'paths are shown relative to cwd')
})

t.test('a missing path or skills/ folder is a typed error, not a lint result', async t => {
  await t.rejects(lintSkills(['skills/nope'], {cwd: INVALID}), {code: 'E_NOT_FOUND'})
  await t.rejects(lintSkills([], {cwd: FIXTURES}), {code: 'E_NOT_FOUND'})
})

// Found by a sweep: skills-ref parsed the frontmatter again without an alias limit and turned
// its values into strings; a 1.4 KB SKILL.md of nested aliases (which exp's parse refuses)
// took `exp skills lint` to 4 GB and a V8 abort after ~76 s.
t.test('a frontmatter of nested aliases is one YAML problem, found at once, never expanded', async t => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'exp-alias-'))
  t.teardown(() => fs.rmSync(dir, {recursive: true, force: true}))
  const skill = path.join(dir, 'skills', 'bomb')
  fs.mkdirSync(skill, {recursive: true})
  const lines = ['---', 'name: bomb', 'description: d', 'metadata:', `  a: &a [${Array(8).fill('"xxxxxxx"').join(',')}]`]
  for (let i = 1; i < 8; i++) lines.push(`  ${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(8).fill(`*${String.fromCharCode(96 + i)}`).join(',')}]`)
  for (let j = 0; j < 40; j++) lines.push(`  m${j}: *h`)
  lines.push('---', '', '# Bomb', '', '## Objective', '', 'x', '')
  fs.writeFileSync(path.join(skill, 'SKILL.md'), lines.join('\n'))
  const began = Date.now()
  const before = process.memoryUsage().rss
  const r = await lintSkill('skills/bomb', {cwd: dir, requirePurpose: false})
  t.ok(Date.now() - began < 5000, `linted in ${Date.now() - began} ms`)
  t.ok(process.memoryUsage().rss - before < 200 * 1024 * 1024, 'no expansion in memory')
  t.ok(r.problems.some(p => p.rule === 'frontmatter/yaml' && /alias/i.test(p.message)), JSON.stringify(r.problems.map(p => p.message)))
})

// Found by a sweep: a SKILL.md with a byte that is not UTF-8 passed lint (read as U+FFFD).
t.test('a SKILL.md or PURPOSE.yaml that is not valid UTF-8 is named, with the line', async t => {
  const {dir, file} = validCopy(t)
  const text = fs.readFileSync(file)
  const third = text.indexOf('\n', text.indexOf('\n', text.indexOf('\n') + 1) + 1)
  fs.writeFileSync(file, Buffer.concat([text.subarray(0, third), Buffer.from([0x20, 0xc3, 0x28]), text.subarray(third)]))
  const r = await lintSkill('skills/onboarding', {cwd: dir})
  t.match(r.problems, [{file: 'skills/onboarding/SKILL.md', rule: 'skill/encoding', line: 3, message: /not valid UTF-8/}])
})

// Found by a sweep: a SKILL.md saved with a BOM got only skills-ref's "must start with YAML
// frontmatter", and one holding NUL bytes (git shows a change to it as "Binary files differ")
// passed lint.
t.test('a SKILL.md with a byte order mark or a NUL byte is named as an encoding problem, with the line', async t => {
  const {dir, file} = validCopy(t)
  const text = fs.readFileSync(file)
  fs.writeFileSync(file, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), text]))
  let r = await lintSkill('skills/onboarding', {cwd: dir})
  t.match(r.problems[0], {file: 'skills/onboarding/SKILL.md', rule: 'skill/encoding', line: 1, message: /byte order mark/})
  const second = text.indexOf('\n') + 1
  fs.writeFileSync(file, Buffer.concat([text.subarray(0, second + 2), Buffer.from([0]), text.subarray(second + 2)]))
  r = await lintSkill('skills/onboarding', {cwd: dir})
  t.match(r.problems, [{file: 'skills/onboarding/SKILL.md', rule: 'skill/encoding', line: 2, message: /NUL byte/}])
  fs.writeFileSync(file, text)
  t.same((await lintSkill('skills/onboarding', {cwd: dir})).problems, [], 'the same file without them passes')
})

// Found by a sweep: a 10 KB SKILL.md whose frontmatter nests 5,000 brackets aborted node (a V8
// fatal error, after the YAML parser overflowed its stack), exit 134.
t.test('a frontmatter nested thousands deep is one YAML problem, not a crash', async t => {
  const {dir, file} = validCopy(t)
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('---\n', `---\nk: ${'['.repeat(5000)}${']'.repeat(5000)}\n`))
  const r = await lintSkill('skills/onboarding', {cwd: dir})
  t.match(r.problems, [{rule: 'frontmatter/yaml', line: 2, message: /nested deeper than 128 levels/}])
})
