import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {GitRecordStore, discoverRepo} from '../../src/store/index.js'
import {GitWorkspace} from '../../src/workspace/git.js'
import {createProposal} from '../../src/loop/proposal.js'
import {initResearch} from '../../src/research/init.js'
import {addExample} from '../../src/research/example.js'
import {makeRepo, git} from '../helpers/repo.js'
import {knowledge, INVENTORY} from '../helpers/loop.js'

// `exp propose` checks everything that can refuse a proposal before it writes a record. Found
// by a review: with a PURPOSE.yaml of `version: -3` (or bad YAML) propose failed only after it
// had recorded a recall and a hypothesis, and the frontier then offered that hypothesis as work;
// a PURPOSE.yaml that is a folder was read as a missing file and failed later as a "corrupted
// or unreadable tree" (exit 5) whose hint said to fetch the lane again.

const NOW = () => new Date('2026-11-30T12:00:00.000Z')

async function repoWith(t: Parameters<typeof makeRepo>[0], purpose: (dir: string) => void) {
  const repo = await makeRepo(t)
  await initResearch(discoverRepo(repo))
  await addExample(discoverRepo(repo), 'onboarding')
  const dir = path.join(repo, 'skills/onboarding')
  purpose(dir)
  await git(repo, 'add', '-A')
  await git(repo, 'commit', '-q', '--allow-empty', '-m', 'purpose')
  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  await store.append({kind: 'knowledge', body: knowledge(INVENTORY)}, {lane: 'me', now: NOW})
  const propose = async () => createProposal(store, new GitWorkspace(store), await store.ledger(), {skill: 'onboarding', lane: 'me', mainRef: 'refs/heads/main', recall: {items: 8, tokens: 1200}, now: NOW})
  const written = async () => (await store.ledger()).select({kinds: ['recall', 'hypothesis', 'proposal']}).length
  return {repo, store, propose, written}
}

const PURPOSE = (version: string) => `skill: onboarding\nversion: ${version}\nstatus: accepted\nderived_from: []\nproposed_by: {human: x}\n`

t.test('an invalid PURPOSE.yaml refuses the proposal before anything is recorded', async t => {
  const bad = await repoWith(t, dir => fs.writeFileSync(path.join(dir, 'PURPOSE.yaml'), PURPOSE('-3')))
  await t.rejects(bad.propose(), {code: 'E_SCHEMA', message: /skills\/onboarding\/PURPOSE\.yaml: PURPOSE\.yaml is invalid: line 2: version must be >= 1/})
  t.equal(await bad.written(), 0, 'no recall, no hypothesis')

  const yaml = await repoWith(t, dir => fs.writeFileSync(path.join(dir, 'PURPOSE.yaml'), 'skill: [onboarding\n'))
  await t.rejects(yaml.propose(), {code: 'E_PARSE', message: /skills\/onboarding\/PURPOSE\.yaml:\d+:\d+: invalid YAML/})
  t.equal(await yaml.written(), 0)

  const other = await repoWith(t, dir => fs.writeFileSync(path.join(dir, 'PURPOSE.yaml'), PURPOSE('2').replace('onboarding', 'offboarding')))
  await t.rejects(other.propose(), {code: 'E_SCHEMA', message: /skill 'offboarding' does not match the folder name 'onboarding'/})
  t.equal(await other.written(), 0)
})

t.test('a PURPOSE.yaml that is a folder is an error naming the file', async t => {
  const r = await repoWith(t, dir => {
    fs.rmSync(path.join(dir, 'PURPOSE.yaml'))
    fs.mkdirSync(path.join(dir, 'PURPOSE.yaml'))
    fs.writeFileSync(path.join(dir, 'PURPOSE.yaml', 'x'), 'x\n')
  })
  await t.rejects(r.propose(), {code: 'E_USAGE', exit: 2, message: /^[0-9a-f]{12}:skills\/onboarding\/PURPOSE\.yaml is a folder, not a file$/})
  t.equal(await r.written(), 0)
})

t.test('a skill without PURPOSE.yaml is at version 1: its proposal is version 2', async t => {
  const r = await repoWith(t, dir => fs.rmSync(path.join(dir, 'PURPOSE.yaml')))
  const p = (await r.propose())!
  t.equal(p.version, 2)
  t.equal(await r.written(), 3)
})

// Found by the same review: a rerun of `exp propose` moved a proposal's branch back to the
// commit exp makes for it, silently, and a hand edit committed on the branch went with it.
t.test('a rerun of propose refuses to reset a proposal branch that has a commit of its own, and writes nothing', async t => {
  const r = await repoWith(t, () => undefined)
  const p = (await r.propose())!
  t.equal((await r.propose())!.proposal, p.proposal, 'a rerun finds the same proposal')
  const before = await r.written()
  await git(r.repo, 'switch', '-q', p.branch)
  fs.appendFileSync(path.join(r.repo, 'skills/onboarding/SKILL.md'), '- my note\n')
  await git(r.repo, 'commit', '-qam', 'precious hand edit')
  const edited = (await git(r.repo, 'rev-parse', 'HEAD')).trim()
  await git(r.repo, 'switch', '-q', 'main')
  await t.rejects(r.propose(), {code: 'E_CONFLICT', message: new RegExp(`^${p.branch} is at ${edited.slice(0, 12)}, not at ${p.head.slice(0, 12)}, the commit of this proposal: it was moved or has commits of its own, and exp does not reset it$`)})
  t.equal((await git(r.repo, 'rev-parse', p.branch)).trim(), edited, 'the edit is kept')
  t.equal(await r.written(), before, 'nothing recorded')
})

// Found by the same review: `version: 9007199254740993` passed `exp skills lint` (YAML reads
// it as 2^53) and propose wrote version 9007199254740992 again, not one more. Such a literal
// is now refused as it is read (never rounded: src/records/yaml.ts); a version past 2^53 - 1
// written otherwise (1.0e+16) is the schema's.
t.test('a version past 2^53 - 1 is refused as read or by the schema, and one at it by propose', async t => {
  const {checkPurpose} = await import('../../src/skills/index.js')
  t.match(checkPurpose(PURPOSE('9007199254740993'), 'onboarding').problems, [{rule: 'purpose/yaml', line: 2, message: /9007199254740993 is an integer beyond 2\^53 \(9007199254740991\): it would be read as 9007199254740992/}])
  t.match(checkPurpose(PURPOSE('1.0e+16'), 'onboarding').problems, [{rule: 'purpose/schema', message: /version must be <= 9007199254740991/}])
  t.same(checkPurpose(PURPOSE('9007199254740991'), 'onboarding').problems, [])
  const past = await repoWith(t, dir => fs.writeFileSync(path.join(dir, 'PURPOSE.yaml'), PURPOSE('9007199254740993')))
  await t.rejects(past.propose(), {code: 'E_PARSE', message: /PURPOSE\.yaml:2:10: invalid YAML: 9007199254740993 is an integer beyond 2\^53/})
  const far = await repoWith(t, dir => fs.writeFileSync(path.join(dir, 'PURPOSE.yaml'), PURPOSE('1.0e+16')))
  await t.rejects(far.propose(), {code: 'E_SCHEMA', message: /version must be <= 9007199254740991/})
  const at = await repoWith(t, dir => fs.writeFileSync(path.join(dir, 'PURPOSE.yaml'), PURPOSE('9007199254740991')))
  await t.rejects(at.propose(), {code: 'E_USAGE', message: /PURPOSE\.yaml is at version 9007199254740991, the largest exp counts to/})
  t.equal(await at.written(), 0)
})

// Found by the same review: `exp propose --proposer …` after a plain `exp propose` on the same
// base failed with "built by lane me … its evaluation is theirs", naming this very lane as
// another: the drafted reason makes another hypothesis for the same patch, which is one
// candidate. It says now that this lane has it, which proposal to evaluate, and records nothing.
t.test('the same patch proposed again by the same lane with other words names its own proposal, and records nothing', async t => {
  const r = await repoWith(t, () => undefined)
  const p = (await r.propose())!
  const before = await r.written()
  const ledger = await r.store.ledger()
  const reworded = createProposal(r.store, new GitWorkspace(r.store), ledger, {skill: 'onboarding', lane: 'me', mainRef: 'refs/heads/main', recall: {items: 8, tokens: 1200}, now: NOW, draft: async proposed => ({proposed: {...proposed, reason: 'in other words'}, exchanges: [], model: 'writer'})})
  await t.rejects(reworded, {code: 'E_CLAIMED', message: new RegExp(`^this lane \\(me\\) proposed the same patch on the same base already: ${p.proposal} from ${p.hypothesis}; one patch on one base is one proposal`), hint: new RegExp(`exp eval ${p.proposal}`), data: {self: true, holder: 'me'}})
  t.equal(await r.written(), before, 'no recall, no hypothesis')
})

// Found by an attack sweep: `exp propose --proposer openai:…` whose drafted reason held what the
// store refuses as a secret wrote the branch's commit and the recall, then failed on the
// hypothesis with a hint saying nothing was written. The drafts are checked first now.
t.test('drafted words the store would refuse for a secret refuse the proposal before its branch or any record is written', async t => {
  const r = await repoWith(t, () => undefined)
  const token = `ghp_${'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123'}`
  const before = await git(r.repo, 'count-objects', '-v')
  // (a drafter whose redaction missed it: the words are the proposal's reason and in its exchanges)
  const leaky = createProposal(r.store, new GitWorkspace(r.store), await r.store.ledger(), {skill: 'onboarding', lane: 'me', mainRef: 'refs/heads/main', recall: {items: 8, tokens: 1200}, now: NOW, draft: async proposed => ({proposed: {...proposed, reason: `as ${token} says`}, exchanges: [], model: 'writer'})})
  await t.rejects(leaky, {code: 'E_SECRET', message: /^hypothesis record: body\.mechanism holds a GitHub token/, hint: /^nothing was written: no branch, recall or proposal; the model's words hold it: propose again without --proposer/})
  t.equal(await r.written(), 0, 'no recall, no hypothesis, no proposal')
  t.equal(await git(r.repo, 'for-each-ref', 'refs/heads/exp'), '', 'no proposal branch')
  t.equal(await git(r.repo, 'count-objects', '-v'), before, 'no object written')
})
