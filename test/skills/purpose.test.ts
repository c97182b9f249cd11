import {mkdtemp, readFile, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import t from 'tap'
import {checkPurpose, formatPurpose, readPurpose, writePurpose, type Purpose} from '../../src/skills/index.js'
import {ParseError} from '../../src/errors/index.js'

const SEED = `skill: onboarding
version: 4
derived_from:
  - inventory-check-before-assignment
  - incomplete-access-before-close
proposed_by:
  model: claude-x
evaluation:
  previous_score: 0.71
  candidate_score: 0.79
status: accepted
`

t.test('the example of docs/skills.md is valid', async t => {
  t.same(checkPurpose(SEED, 'onboarding'), {value: checkPurpose(SEED).value, problems: []})
  t.equal(checkPurpose(SEED).value?.version, 4)
})

t.test('schema problems carry the line of the offending field', async t => {
  const text = SEED.replace('version: 4', 'version: 4.5').replace('status: accepted', 'status: merged').replace('  model: claude-x', '  model: claude-x\n  colour: red').replace('0.79', '1.2') + 'notes: hi\n'
  const ps = checkPurpose(text).problems
  t.ok(ps.every(p => p.rule === 'purpose/schema'))
  t.same(ps.map(p => [p.line, p.message]).sort((a, b) => Number(a[0]) - Number(b[0])), [
    [2, 'version must be integer'],
    [8, 'proposed_by.colour is not an allowed field'],
    [11, 'evaluation.candidate_score must be <= 1'],
    [12, 'status must be one of: proposed, accepted, rejected, reverted'],
    [13, 'notes is not an allowed field'],
  ])
})

t.test('an alias bomb or an unknown tag in PURPOSE.yaml is a purpose/yaml problem, not an unexpected failure', async t => {
  const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]', 'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]', 'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]', 'd: [*c,*c,*c,*c,*c,*c,*c,*c,*c]'].join('\n')
  const ps = checkPurpose(`${bomb}\n${SEED}`).problems
  t.same(ps.map(p => p.rule), ['purpose/yaml'])
  t.match(ps[0]!.message, /too many YAML alias expansions .*alias bomb/)
  const tagged = checkPurpose(SEED.replace('status: accepted', 'status: !!js/function accepted')).problems
  t.same(tagged.map(p => [p.rule, p.line, p.column]), [['purpose/yaml', 11, 9]])
  t.match(tagged[0]!.message, /Unresolved tag/)
})

t.test('missing fields, bad ids and an empty proposer are rejected', async t => {
  const ps = checkPurpose('skill: onboarding\nversion: 1\nproposed_by: {}\nproposal: pr-12\n').problems.map(p => p.message)
  t.ok(ps.includes('status is required'))
  t.ok(ps.includes('derived_from is required'))
  t.ok(ps.some(m => /^proposed_by must NOT have fewer than 1 properties/.test(m)))
  t.ok(ps.some(m => /^proposal must match pattern/.test(m)))
})

t.test('YAML syntax errors are reported with line and column', async t => {
  const [p] = checkPurpose('skill: onboarding\nversion: 1\nderived_from: [a\nstatus: proposed\n').problems
  t.match(p, {rule: 'purpose/yaml', line: 4, column: 1})
  t.match(checkPurpose('skill: a\nskill: b\n').problems[0], {rule: 'purpose/yaml', line: 2})
})

t.test('skill must name the folder', async t => {
  t.match(checkPurpose(SEED, 'procurement').problems, [{rule: 'purpose/skill', line: 1}])
})

t.test('format writes a stable key order under a header comment, and reads back', async t => {
  const purpose: Purpose = {status: 'accepted', evaluation: {candidate_score: 0.79, previous_score: 0.71}, proposed_by: {model: 'claude-x', proposer: 'exp-proposer'}, derived_from: ['a', 'b'], version: 4, skill: 'onboarding'}
  const text = formatPurpose(purpose)
  t.match(text, /^# Provenance of skills\/onboarding\/SKILL.md/)
  const keys = text.split('\n').filter(l => /^[a-z_]+:/.test(l)).map(l => l.split(':')[0])
  t.same(keys, ['skill', 'version', 'status', 'derived_from', 'proposed_by', 'evaluation'])
  t.match(text, /proposed_by:\n {2}proposer: exp-proposer\n {2}model: claude-x\n/)
  t.equal(formatPurpose({...purpose}), text, 'same input, same bytes')
  t.throws(() => formatPurpose({...purpose, version: 0}), {code: 'E_SCHEMA'}, 'never writes an invalid file')

  const dir = await mkdtemp(path.join(tmpdir(), 'exp-purpose-'))
  t.equal(await writePurpose(dir, purpose), path.join(dir, 'PURPOSE.yaml'))
  t.equal(await readFile(path.join(dir, 'PURPOSE.yaml'), 'utf8'), text)
  t.same(await readPurpose(dir), checkPurpose(text).value)
})

t.test('readPurpose fails with typed errors', async t => {
  const dir = await mkdtemp(path.join(tmpdir(), 'exp-purpose-'))
  await t.rejects(readPurpose(dir), {code: 'E_NOT_FOUND'})
  await writeFile(path.join(dir, 'PURPOSE.yaml'), 'skill: [x\n')
  const err = await readPurpose(dir).catch(e => e)
  t.type(err, ParseError)
  t.match(err.data, {line: 2})
  await writeFile(path.join(dir, 'PURPOSE.yaml'), 'skill: x\n')
  await t.rejects(readPurpose(dir), {code: 'E_SCHEMA'})
})
