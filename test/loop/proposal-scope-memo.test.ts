import t from 'tap'
import {MemoryWorkspace} from '../../src/workspace/memory.js'
import {proposalViolations, type ScopeMemo} from '../../src/loop/proposal-scope.js'
import {SKILLS_CONTRACT_YAML} from '../../src/research/templates.js'

/**
 * The trust checks compare every accepted proposal's branch with the skills contract at its
 * base, keeping the scopes by the contracts folder's tree id (ScopeMemo): bases that share
 * the folder read it once, a base whose folder differs is read on its own, and the answers
 * are the ones made without the memo.
 */
t.test('scopes are read once per contracts folder, and the violations are the same as without the memo', async t => {
  const ws = new MemoryWorkspace()
  const main = ws.seed('main', {'.research/contracts/skills.yaml': SKILLS_CONTRACT_YAML, 'skills/a/SKILL.md': 'a\n', 'docs/x.md': 'x\n'})
  // a later base with the same contracts folder, and one whose contract makes docs/ editable
  const base2 = await ws.commitFiles({base: main, files: [{path: 'skills/a/SKILL.md', content: Buffer.from('a2\n')}], message: 'skill'})
  const wider = SKILLS_CONTRACT_YAML.replace('  - knowledge/*.yaml\n', '  - knowledge/*.yaml\n  - docs/**\n')
  const base3 = await ws.commitFiles({base: base2, files: [{path: '.research/contracts/skills.yaml', content: Buffer.from(wider)}], message: 'docs editable'})
  const proposal = async (base: string, files: Record<string, string>) => ({
    skill: 'a',
    base: {commit: base, skill_blob: '0'.repeat(40)},
    head: {commit: await ws.commitFiles({base, files: Object.entries(files).map(([path, c]) => ({path, content: Buffer.from(c)})), message: 'p'}), skill_blob: '0'.repeat(40)},
  })
  const ps = [
    await proposal(main, {'skills/a/SKILL.md': 'b\n'}),
    await proposal(base2, {'skills/a/SKILL.md': 'c\n', 'docs/x.md': 'y\n', '.research/policy.yaml': 'weak\n'}),
    await proposal(base3, {'skills/a/SKILL.md': 'd\n', 'docs/x.md': 'z\n'}),
    await proposal(base3, {'scenarios/s.yaml': 'edited\n'}),
  ]
  let reads = 0
  const listFiles = ws.listFiles.bind(ws)
  ws.listFiles = (...a: Parameters<typeof ws.listFiles>) => (reads++, listFiles(...a))
  const want: string[][] = []
  for (const p of ps) want.push(await proposalViolations(ws, p))
  t.equal(reads, 4, 'without a memo: the contracts read for each proposal')
  reads = 0
  const memo: ScopeMemo = new Map()
  const got: string[][] = []
  for (const p of ps) got.push(await proposalViolations(ws, p, memo))
  t.equal(reads, 2, 'with one: once per contracts folder (main and base2 share one; base3 has its own)')
  t.same(got, want, 'the same violations')
  t.same(got[0], [], 'the skill alone')
  t.match(got[1]!.join('\n'), /outside the editable scope: docs\/x.md/)
  t.match(got[1]!.join('\n'), /protected path changed: .research\/policy.yaml/)
  t.same(got[2], ['not a file a proposal of a writes: docs/x.md'], 'docs/ editable in base3, yet not a file a proposal writes')
  t.match(got[3]!.join('\n'), /protected path changed: scenarios\/s.yaml/)
})
