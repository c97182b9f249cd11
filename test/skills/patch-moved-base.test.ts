import t from 'tap'
import {applyPatch, type SkillPatch} from '../../src/skills/index.js'
import {PatchConflictError} from '../../src/errors/index.js'
import {BODY} from '../helpers/skills.js'
import {edit} from '../helpers/patches.js'

// the patch was made against BODY; the tests apply it to bases that moved since
const PATCH: SkillPatch = {
  edits: [
    edit({op: 'insert_after', section: 'Procedure', anchor: 'Check hardware inventory.', lines: ['Reserve the device.']}),
    edit({op: 'append', section: 'Failure handling', lines: ['- notify the manager.']}),
  ],
}

t.test('applies when its context still matches, even if other lines changed', async t => {
  const moved = BODY.replace('1. Resolve employee identity.\n', '1. Resolve employee identity.\n2. Load the HR record.\n')
    .replace(/^(\d+)\. (Retrieve|Check|Assign|Request|Provision|Verify|Mark)/gm, (_m, n: string, w: string) => `${Number(n) + 1}. ${w}`)
    .replace('Complete onboarding while', 'Finish onboarding while')
  const out = applyPatch(moved, PATCH)
  t.match(out, /4\. Check hardware inventory\.\n5\. Reserve the device\.\n6\. Assign available hardware\./)
  t.match(out, /Finish onboarding/, 'the moved lines are kept')
  t.match(out, /- leave the workflow incomplete\.\n- notify the manager\.\n$/)
})

t.test('the anchor matches regardless of its step number, case and spacing', async t => {
  const moved = BODY.replace('3. Check hardware inventory.', '3.   check  HARDWARE inventory.')
  t.match(applyPatch(moved, PATCH), /3\. {3}check {2}HARDWARE inventory\.\n4\. {3}Reserve the device\./, "new steps copy the marker style of their neighbour")
})

t.test('context gone: E_PATCH_CONFLICT names the section and the missing line; nothing is applied', async t => {
  const moved = BODY.replace('3. Check hardware inventory.', '3. Look up stock levels.')
  const copy = moved.slice()
  const err = t.throws(() => applyPatch(moved, PATCH)) as PatchConflictError
  t.type(err, PatchConflictError)
  t.match(err, {code: 'E_PATCH_CONFLICT', exit: 4, data: {reason: 'anchor-missing', section: 'Procedure', context: 'Check hardware inventory.', edit: 0}})
  t.match(err.message, /section "Procedure" has no line matching "Check hardware inventory\."/)
  t.equal(moved, copy, 'the caller text is untouched')
})

t.test('a later edit failing rolls back the earlier ones (all or nothing)', async t => {
  const patch: SkillPatch = {edits: [PATCH.edits[0]!, edit({op: 'remove', section: 'Procedure', anchor: 'Call the CEO.'})]}
  t.throws(() => applyPatch(BODY, patch), {code: 'E_PATCH_CONFLICT', data: {edit: 1}})
})

t.test('other conflicts: missing section, ambiguous anchor, section that already exists', async t => {
  const noSection = BODY.replace('## Failure handling', '## Recovery')
  t.throws(() => applyPatch(noSection, PATCH), {code: 'E_PATCH_CONFLICT', data: {reason: 'section-missing', section: 'Failure handling'}})
  const twice = BODY.replace('4. Assign available hardware.', '4. Check hardware inventory.')
  t.throws(() => applyPatch(twice, PATCH), {code: 'E_PATCH_CONFLICT', data: {reason: 'anchor-ambiguous'}})
  const exists = {edits: [edit({op: 'add_section', section: 'objective', lines: ['x']})]}
  t.throws(() => applyPatch(BODY, exists), {code: 'E_PATCH_CONFLICT', data: {reason: 'section-exists'}})
  const after = {edits: [edit({op: 'add_section', section: 'Checks', after: 'Preconditions', lines: ['x']})]}
  t.throws(() => applyPatch(BODY, after), {code: 'E_PATCH_CONFLICT', data: {reason: 'section-missing', section: 'Preconditions'}})
})
