import t from 'tap'
import {lintSkillSource, type RuleId} from '../../src/skills/index.js'
import {skillText, withFields} from '../helpers/skills.js'

const PURPOSE = 'skill: onboarding\nversion: 1\nstatus: accepted\nderived_from: []\nproposed_by: {human: ana}\n'

/** Lints a SKILL.md text as if it were skills/<folder>/SKILL.md (skills-ref runs on the text). */
function lint(skill: string, folder = 'onboarding') {
  return lintSkillSource({dir: `skills/${folder}`, name: folder, skill, purpose: PURPOSE.replace('onboarding', folder)}).problems
}

const rules = (skill: string, folder?: string) => lint(skill, folder).map(p => p.rule)

t.test('the valid fixture has no problem', async t => {
  t.same(lint(withFields({})), [])
})

t.test('name rules: charset, length, hyphens, folder, presence', async t => {
  const cases: [string, string | null, RuleId, string?][] = [
    ['uppercase', 'Onboarding', 'name/charset', 'Onboarding'],
    ['underscore', 'on_boarding', 'name/charset', 'on_boarding'],
    ['non-ASCII letter (spec allows it, exp does not)', 'onboardé', 'name/charset', 'onboardé'],
    ['65 characters', 'a'.repeat(65), 'name/length', 'a'.repeat(65)],
    ['leading hyphen', '-onboarding', 'name/hyphens', '-onboarding'],
    ['trailing hyphen', 'onboarding-', 'name/hyphens', 'onboarding-'],
    ['double hyphen', 'on--boarding', 'name/hyphens', 'on--boarding'],
    ['differs from the folder', 'offboarding', 'name/folder'],
    ['missing', null, 'name/required'],
    ['empty', '""', 'name/required'],
    ['not a string', '42', 'name/required'],
  ]
  for (const [what, name, rule, folder] of cases) t.ok(rules(withFields({name}), folder).includes(rule), `${what} → ${rule}`)
  t.same(rules(withFields({name: 'a'.repeat(64)}), 'a'.repeat(64)), [], '64 characters is fine')
})

t.test('name problems point at the line of the name key', async t => {
  const [p] = lint(skillText(['description: d', 'name: Bad']), 'Bad')
  t.match(p, {file: 'skills/Bad/SKILL.md', line: 3, rule: 'name/charset'})
})

t.test('description rules: presence, length, angle brackets', async t => {
  t.ok(rules(withFields({description: null})).includes('description/required'))
  t.ok(rules(withFields({description: ''})).includes('description/required'), 'an empty value is missing')
  t.ok(rules(withFields({description: 'x'.repeat(1025)})).includes('description/length'))
  t.same(rules(withFields({description: 'x'.repeat(1024)})), [], '1024 characters is fine')
  t.same(rules(withFields({description: 'use a <tool> here'})), ['description/angle-brackets'])
  t.same(rules(withFields({description: 'a -> b'})), ['description/angle-brackets'])
})

t.test('unknown top-level keys are rejected with the line of the first one', async t => {
  const ps = lint(withFields({version: '2', tags: 'x'}))
  t.equal(ps.length, 1, 'one problem for all unknown keys (as skills-ref reports it)')
  t.match(ps[0], {rule: 'frontmatter/unknown-key', line: 4, message: /tags, version/})
  t.same(rules(withFields({license: 'MIT', compatibility: 'node 20', 'allowed-tools': 'Bash Read'})), [], 'the optional spec keys are allowed')
})

t.test('optional fields have the types of the spec', async t => {
  t.same(rules(withFields({license: '[MIT]'})), ['license/type'])
  t.same(rules(withFields({'allowed-tools': '[a, b]'})), ['allowed-tools/type'])
  t.same(rules(withFields({metadata: '{a: 1}'})), ['metadata/type'])
  t.same(rules(withFields({compatibility: '3'})), ['compatibility/type'])
  t.same(rules(withFields({compatibility: 'x'.repeat(501)})), ['compatibility/length'])
})

t.test('frontmatter structure: missing, unclosed, YAML syntax with line and column', async t => {
  t.same(rules('# Onboarding\n## Objective\nx\n').slice(0, 1), ['frontmatter/missing'])
  t.match(lint('---\nname: onboarding\n## Objective\n')[0], {rule: 'frontmatter/unclosed', line: 1})
  const [y] = lint(skillText(['name: onboarding', 'description: [unclosed']))
  t.match(y, {rule: 'frontmatter/yaml', line: 3, column: 23})
  t.match(lint(skillText(['name: a', 'name: b']))[0], {rule: 'frontmatter/yaml', line: 3, message: /unique/})
  t.same(rules(skillText(['- a list'])).slice(0, 1), ['frontmatter/not-mapping'])
  // a tag yaml does not know was a warning, and the value read as the plain text after it
  t.match(lint(skillText(['name: onboarding', 'description: !!js/function Onboard a new employee.']))[0], {rule: 'frontmatter/yaml', line: 3, message: /Unresolved tag/})
})
