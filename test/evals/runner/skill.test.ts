import t from 'tap'
import path from 'node:path'
import {resolveSkill} from '../../../src/evals/runner/skill.js'
import {MemoryWorkspace} from '../../../src/workspace/memory.js'
import {hashObject} from '../../../src/records/object-id.js'
import {tempDir} from '../../helpers/repo.js'

const SKILL = (name: string) => `---\nname: ${name}\ndescription: a skill\n---\n\n# ${name}\n`

// A skill at a git revision is read through the Workspace port, not with git itself: the memory adapter serves it here.
t.test('a skill at a revision, through the Workspace port', async t => {
  const cwd = tempDir(t)
  const skillsDir = path.join(cwd, 'skills')
  const ws = new MemoryWorkspace()
  const one = ws.seed('main', {'skills/onboarding/SKILL.md': SKILL('onboarding'), 'README.md': 'x\n'})
  const o = {cwd, skillsDir, workspace: ws}
  const r = await resolveSkill('main', o)
  t.match(r, {name: 'onboarding', source: 'main:skills/onboarding/SKILL.md', commit: one, content: SKILL('onboarding')})
  t.equal(r.blob, hashObject('blob', Buffer.from(SKILL('onboarding'))), 'the blob id git gives the same bytes')
  t.match(await resolveSkill('main:skills/onboarding', o), {source: 'main:skills/onboarding/SKILL.md', commit: one}, 'REV:FOLDER')
  t.match(await resolveSkill(`${one}:skills/onboarding/SKILL.md`, o), {name: 'onboarding'}, 'COMMIT:FILE')
  const two = await ws.commitFiles({base: one, files: [{path: 'skills/offboarding/SKILL.md', content: Buffer.from(SKILL('offboarding'))}], message: 'second skill'})
  await ws.moveRef('refs/heads/main', two, one)
  await t.rejects(resolveSkill('main', o), {code: 'E_USAGE', message: /main has 2 skills; name one as main:skills\/NAME/})
  t.match(await resolveSkill('main:skills/offboarding', o), {name: 'offboarding', commit: two})
  t.match(await resolveSkill('main~1', o), {name: 'onboarding', commit: one}, 'REV~N')
  await t.rejects(resolveSkill('nope', o), {code: 'E_NOT_FOUND', message: /nope/})
  await t.rejects(resolveSkill('main:skills/missing', o), {code: 'E_NOT_FOUND', message: /main:skills\/missing\/SKILL.md/, hint: /skills\/missing\/SKILL\.md does not exist at main; list the skills there with `git ls-tree -r --name-only main -- skills`/})
  await t.rejects(resolveSkill('main', {cwd, skillsDir}), {code: 'E_NOT_FOUND'}, 'without a workspace only folders on disk are skills')
})
