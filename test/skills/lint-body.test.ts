import t from 'tap'
import {lintSkillSource} from '../../src/skills/index.js'
import {BODY, skillText} from '../helpers/skills.js'

const FM = ['name: onboarding', 'description: Onboard a new employee.']

function lint(body: string, requiredSections?: string[]) {
  return lintSkillSource({dir: 'skills/onboarding', name: 'onboarding', skill: skillText(FM, body)}, {requiredSections, requirePurpose: false}).problems
}

t.test('the seed body passes', async t => {
  t.same(lint(BODY), [])
})

t.test('each required section is reported when missing, after the located problems', async t => {
  const ps = lint('# T\n## Procedure\n1. a\n2. a\n')
  t.same(ps.map(p => [p.rule, p.line, p.message]), [
    ['section/missing', undefined, 'missing section "## Objective"'],
    ['section/missing', undefined, 'missing section "## Failure handling"'],
  ])
  t.same(lint('## Objective\nx\n', ['Objective']), [], 'the required set is an option')
})

t.test('section titles match case- and space-insensitively', async t => {
  t.same(lint('## objective\nx\n## PROCEDURE\n1. a\n##   Failure   handling\n- b\n'), [])
})

t.test('duplicate and empty sections', async t => {
  const ps = lint(`${BODY}## Objective\n\n`)
  t.same(ps.map(p => [p.rule, p.line]), [['section/duplicate', 22], ['section/empty', 22]])
})

t.test('the procedure needs a numbered list, numbered 1, 2, 3', async t => {
  const bullets = lint('## Objective\nx\n## Procedure\n- a\n- b\n## Failure handling\n- c\n')
  t.same(bullets.map(p => [p.rule, p.line]), [['procedure/list', 7]])
  const skipped = lint('## Objective\nx\n## Procedure\n1. a\n2. b\n4. c\n## Failure handling\n- c\n')
  t.same(skipped.map(p => [p.rule, p.line]), [['procedure/numbering', 10]])
  t.match(skipped[0]!.message, /"c" is numbered 4, expected 3/)
  const fromZero = lint('## Objective\nx\n## Procedure\n0. a\n1. b\n## Failure handling\n- c\n')
  t.same(fromZero.map(p => p.rule), ['procedure/numbering'])
  const split = lint('## Objective\nx\n## Procedure\n1. a\n2. b\n\nA note between lists.\n\n3. c\n## Failure handling\n- c\n')
  t.same(split, [], 'a list interrupted by a paragraph may continue its numbering')
})
