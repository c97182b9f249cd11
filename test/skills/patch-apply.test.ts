import t from 'tap'
import {applyPatch, findSection, parseSkill} from '../../src/skills/index.js'
import {BODY} from '../helpers/skills.js'
import {edit} from '../helpers/patches.js'

const steps = (text: string, section = 'Procedure') => findSection(parseSkill(text), section)!.lines.slice(1).filter(l => l.trim())

t.test('insert after a step adds a numbered step and renumbers the rest', async t => {
  const out = applyPatch(BODY, {edits: [edit({op: 'insert_after', section: 'Procedure', anchor: 'Check hardware inventory.', lines: ['Reserve the device in inventory.']})]})
  t.same(steps(out).slice(2, 6), ['3. Check hardware inventory.', '4. Reserve the device in inventory.', '5. Assign available hardware.', '6. Request procurement if inventory is unavailable.'])
  t.equal(steps(out).at(-1), '9. Mark onboarding complete only when all blockers are cleared.')
})

t.test('insert before the first step keeps the list starting at 1', async t => {
  const out = applyPatch(BODY, {edits: [edit({op: 'insert_before', section: 'procedure', anchor: '1. resolve EMPLOYEE identity.', lines: ['7. Read the ticket.']})]})
  t.same(steps(out).slice(0, 2), ['1. Read the ticket.', '2. Resolve employee identity.'], 'the anchor matches without marker/case; the given number is replaced')
})

t.test('append goes to the end of the section: a list item when the section ends with a list', async t => {
  const out = applyPatch(BODY, {edits: [
    edit({op: 'append', section: 'Procedure', lines: ['Close the ticket.']}),
    edit({op: 'append', section: 'Failure handling', lines: ['* notify the manager.']}),
    edit({op: 'append', section: 'Objective', lines: ['Never skip an approval.']}),
  ]})
  t.equal(steps(out).at(-1), '9. Close the ticket.')
  t.equal(steps(out, 'Failure handling').at(-1), '- notify the manager.', 'the bullet follows the list style')
  t.same(steps(out, 'Objective'), ['Complete onboarding while respecting workflow dependencies.', 'Never skip an approval.'])
})

t.test('replace swaps one step for several; remove drops one; both renumber', async t => {
  const out = applyPatch(BODY, {edits: [
    edit({op: 'replace', section: 'Procedure', anchor: 'Assign available hardware.', lines: ['Assign hardware only if inventory confirms availability.', 'Otherwise create a procurement blocker and escalate.']}),
    edit({op: 'remove', section: 'Procedure', anchor: 'Request procurement if inventory is unavailable.'}),
    edit({op: 'remove', section: 'Procedure', anchor: 'Resolve employee identity.'}),
    edit({op: 'replace', section: 'Failure handling', anchor: 'If a required dependency cannot be fulfilled:', lines: ['When a dependency fails:']}),
  ]})
  t.same(steps(out), [
    '1. Retrieve onboarding requirements.',
    '2. Check hardware inventory.',
    '3. Assign hardware only if inventory confirms availability.',
    '4. Otherwise create a procurement blocker and escalate.',
    '5. Provision required access.',
    '6. Verify all mandatory tasks.',
    '7. Mark onboarding complete only when all blockers are cleared.',
  ])
  t.equal(steps(out, 'Failure handling')[0], 'When a dependency fails:', 'a plain line is replaced verbatim')
})

t.test('add a section after another, or at the end keeping the final newline', async t => {
  const mid = applyPatch(BODY, {edits: [edit({op: 'add_section', section: 'Preconditions', after: 'Objective', lines: ['- the employee record exists.']})]})
  t.same(parseSkill(mid).sections.map(s => s.title), ['Objective', 'Preconditions', 'Procedure', 'Failure handling'])
  t.match(mid, /dependencies\.\n\n## Preconditions\n- the employee record exists\.\n\n## Procedure\n/)
  const end = applyPatch(BODY, {edits: [edit({op: 'add_section', section: 'Checks', lines: ['- inventory first.']})]})
  t.ok(end.endsWith('- leave the workflow incomplete.\n\n## Checks\n- inventory first.\n'))
})

t.test('CRLF files stay CRLF', async t => {
  const crlf = BODY.replace(/\n/g, '\r\n')
  const out = applyPatch(crlf, {edits: [edit({op: 'insert_after', section: 'Procedure', anchor: 'Check hardware inventory.', lines: ['Reserve it.']})]})
  t.equal(out, applyPatch(BODY, {edits: [edit({op: 'insert_after', section: 'Procedure', anchor: 'Check hardware inventory.', lines: ['Reserve it.']})]}).replace(/\n/g, '\r\n'))
})

t.test('a malformed patch is rejected at the boundary', async t => {
  t.throws(() => applyPatch(BODY, {edits: []}), {code: 'E_SCHEMA'})
  t.throws(() => applyPatch(BODY, {edits: [{op: 'remove', section: 'Procedure', anchor: 'x'}]} as never), {code: 'E_SCHEMA', message: /reason is required/})
  t.throws(() => applyPatch(BODY, {edits: [edit({op: 'append', section: 'Procedure', lines: ['a\nb']})]}), {code: 'E_SCHEMA'}, 'one line per entry')
})
