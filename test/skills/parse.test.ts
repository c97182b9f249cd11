import t from 'tap'
import {parseSkill, renderSkill, findSection} from '../../src/skills/index.js'
import {ONBOARDING} from '../helpers/skills.js'

t.test('a skill splits into frontmatter, title and sections in order', async t => {
  const p = parseSkill(ONBOARDING)
  t.equal(p.frontmatter?.data.name, 'onboarding')
  t.same(p.frontmatter?.data.metadata, {owner: 'it-ops'})
  t.equal(p.title, 'Employee Onboarding')
  t.same(p.sections.map(s => s.title), ['Objective', 'Procedure', 'Failure handling'])
  t.same(p.sections.map(s => s.line), [9, 11, 20], 'heading lines are 1-based file lines')
})

t.test('procedure steps are addressable list items with their numbers', async t => {
  const proc = findSection(parseSkill(ONBOARDING), 'procedure')!
  t.equal(proc.items.length, 8)
  t.same(proc.items.map(i => i.number), [1, 2, 3, 4, 5, 6, 7, 8])
  const third = proc.items[2]!
  t.match(third, {index: 2, ordered: true, text: 'Check hardware inventory.'})
  t.equal(proc.lines[third.start], '3. Check hardware inventory.')
  const fail = findSection(parseSkill(ONBOARDING), 'Failure handling')!
  t.same(fail.items.map(i => [i.ordered, i.text]), [[false, 'record the blocker;'], [false, 'escalate to the responsible team;'], [false, 'leave the workflow incomplete.']])
})

t.test('item text drops markdown syntax and spans wrapped lines', async t => {
  const p = parseSkill('## Procedure\n1. Check **hardware**\n   `inventory` first.\n   - a nested note\n2. Assign.\n')
  const [first] = p.sections[0]!.items
  t.equal(first!.text, 'Check hardware inventory first.')
  t.same([first!.start, first!.end], [1, 4], 'the item owns its continuation and nested lines')
})

t.test('deeper headings stay inside their section; unknown sections are kept', async t => {
  const p = parseSkill('# T\n## Procedure\n1. a\n### Notes\ntext\n## Extra\nmore\n')
  t.same(p.sections.map(s => s.title), ['Procedure', 'Extra'])
  t.same(p.sections[0]!.lines, ['## Procedure', '1. a', '### Notes', 'text'])
})

t.test('rendering an unchanged parse gives back the exact text', async t => {
  const texts = {
    seed: ONBOARDING,
    'no trailing newline': ONBOARDING.trimEnd(),
    crlf: ONBOARDING.replace(/\n/g, '\r\n'),
    'no frontmatter': '# Title\n\nintro\n\n## Objective\n\nx\n\n\n',
    'blank lines and a table': '---\nname: a\n---\n\n## Objective\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n## Procedure\n\n1. x\n\n   more\n\n2. y\n',
    'unclosed frontmatter': '---\nname: a\n## Objective\nx',
    empty: '',
  }
  for (const [name, text] of Object.entries(texts)) t.equal(renderSkill(parseSkill(text)), text, name)
})
