import {execFileSync} from 'node:child_process'
import {mkdtempSync, writeFileSync, readFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'
import t from 'tap'
import {patchDigest, renderPatch, type SkillPatch} from '../../src/skills/index.js'
import {ONBOARDING} from '../helpers/skills.js'
import {edit} from '../helpers/patches.js'

// the example of docs/skills.md, "Patches": "- 3. Assign required hardware." becomes three steps
const BASE = ONBOARDING.replace('3. Check hardware inventory.\n4. Assign available hardware.\n', '3. Assign required hardware.\n').replace(/^(\d)\. (Request|Provision|Verify|Mark)/gm, (_m, n: string, w: string) => `${Number(n) - 1}. ${w}`)
const PATCH: SkillPatch = {
  skill: 'onboarding',
  edits: [
    edit({op: 'replace', section: 'Procedure', anchor: 'Assign required hardware.', lines: ['Check hardware inventory.', 'Assign hardware only if inventory confirms availability.', 'Otherwise create a procurement blocker and escalate.']}),
    edit({op: 'append', section: 'Failure handling', lines: ['- never close the workflow with open blockers.'], knowledge: []}),
  ],
}

t.test('renders text, a git-style diff, size and the sections touched', async t => {
  const r = renderPatch(BASE, PATCH, {path: 'skills/onboarding/SKILL.md'})
  t.match(r.diff, /^diff --git a\/skills\/onboarding\/SKILL.md b\/skills\/onboarding\/SKILL.md\nindex [0-9a-f]{7}\.\.[0-9a-f]{7} 100644\n--- a\/skills\/onboarding\/SKILL.md\n\+\+\+ b\/skills\/onboarding\/SKILL.md\n@@ -11,13 \+11,16 @@ ## Objective\n ## Procedure\n/, "like git, the hunk names the heading above it")
  t.match(r.diff, /\n-3\. Assign required hardware\.\n-4\. Request procurement if inventory is unavailable\.\n/)
  t.match(r.diff, /\n\+3\. Check hardware inventory\.\n\+4\. Assign hardware only if inventory confirms availability\.\n\+5\. Otherwise create a procurement blocker and escalate\.\n\+6\. Request procurement/)
  t.match(r.diff, /\n - leave the workflow incomplete\.\n\+- never close the workflow with open blockers\.\n$/)
  t.same(r.size, {added: 3, removed: 0, changed: 5}, 'renumbered steps count as changed lines')
  t.same(r.sections, ['Procedure', 'Failure handling'])
  t.match(r.normalized, /^sha256:[0-9a-f]{64}$/)
  t.same(r.edits, PATCH.edits)
})

t.test('the diff applies with git apply and gives the new text', async t => {
  const dir = mkdtempSync(path.join(tmpdir(), 'exp-diff-'))
  execFileSync('git', ['init', '-q', dir])
  const r = renderPatch(BASE, PATCH)
  writeFileSync(path.join(dir, 'SKILL.md'), BASE)
  writeFileSync(path.join(dir, 'p.diff'), r.diff)
  execFileSync('git', ['apply', 'p.diff'], {cwd: dir})
  t.equal(readFileSync(path.join(dir, 'SKILL.md'), 'utf8'), r.text)
  const git = execFileSync('git', ['hash-object', '--stdin'], {input: r.text}).toString().slice(0, 7)
  t.match(r.diff, new RegExp(`\\.\\.${git} 100644`), 'the index line names git blob ids')
})

t.test('a missing final newline is shown the way git shows it', async t => {
  const r = renderPatch(BASE.trimEnd(), {edits: [edit({op: 'append', section: 'Failure handling', lines: ['- one more.']})]})
  t.match(r.diff, /\n-- leave the workflow incomplete\.\n\\ No newline at end of file\n\+- leave the workflow incomplete\.\n\+- one more\.\n\\ No newline at end of file\n$/)
})

t.test('the normalized digest ignores whitespace, case, markers, reasons and edit order', async t => {
  const same: SkillPatch = {
    edits: [
      {...PATCH.edits[1]!, reason: 'another reason', knowledge: ['kn-000000000000000000000000']} as typeof PATCH.edits[1],
      edit({op: 'replace', section: '  procedure ', anchor: '3.  ASSIGN required   hardware.', lines: ['1. check hardware inventory. ', '', 'Assign hardware only if  inventory confirms availability.', '- otherwise create a procurement blocker and escalate.']}),
    ],
  }
  t.equal(patchDigest(same), patchDigest(PATCH))
  const different: SkillPatch = {edits: [PATCH.edits[0]!, edit({op: 'append', section: 'Failure handling', lines: ['- never close the workflow.']})]}
  t.not(patchDigest(different), patchDigest(PATCH), 'a different text is a different patch')
  const otherOp: SkillPatch = {edits: [PATCH.edits[0]!, edit({op: 'insert_after', section: 'Failure handling', anchor: 'leave the workflow incomplete.', lines: ['- never close the workflow with open blockers.']})]}
  t.not(patchDigest(otherOp), patchDigest(PATCH), 'the same text placed differently is a different patch')
})
