import {mkdtemp, mkdir, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import t from 'tap'
import {loadSkill, skillsPrompt} from '../../src/skills/index.js'
import {FIXTURES, ONBOARDING} from '../helpers/skills.js'

const DIR = path.join(FIXTURES, 'valid/skills/onboarding')

t.test('loadSkill reads properties (via skills-ref) and the parsed body', async t => {
  const s = await loadSkill(DIR)
  t.equal(s.name, 'onboarding')
  t.equal(s.text, ONBOARDING)
  t.match(s.properties, {name: 'onboarding', license: 'MIT', metadata: {owner: 'it-ops'}})
  t.equal(s.parsed.sections.length, 3)
})

t.test('loadSkill fails with typed errors', async t => {
  const root = await mkdtemp(path.join(tmpdir(), 'exp-load-'))
  await t.rejects(loadSkill(root), {code: 'E_NOT_FOUND'})
  const broken = path.join(root, 'broken')
  await mkdir(broken)
  await writeFile(path.join(broken, 'SKILL.md'), '---\nname: broken\n---\n')
  await t.rejects(loadSkill(broken), {code: 'E_SCHEMA', message: /description/})
  await writeFile(path.join(broken, 'SKILL.md'), '# no frontmatter\n')
  await t.rejects(loadSkill(broken), {code: 'E_PARSE'})
})

t.test('skillsPrompt gives the <available_skills> block of skills-ref', async t => {
  const xml = await skillsPrompt([DIR])
  t.match(xml, /^<available_skills>\n<skill>\n<name>\nonboarding\n<\/name>/)
})
