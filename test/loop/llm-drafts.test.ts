import t from 'tap'
import {cpSync} from 'node:fs'
import {execFileSync} from 'node:child_process'
import path from 'node:path'
import {createChat} from '../../src/agents/openai/index.js'
import {parseRules, renderRule} from '../../src/knowledge/index.js'
import {draftPatch} from '../../src/loop/drafts.js'
import {drafter} from '../../src/loop/llm.js'
import {proposePatch} from '../../src/loop/proposer.js'
import {buildRecall} from '../../src/loop/recall.js'
import type {KnowledgeItem} from '../../src/loop/knowledge.js'
import {draftClaimTexts} from '../../src/mining/index.js'
import {prepare, seal, type ExpRecord, type RecordDraft} from '../../src/records/index.js'
import type {KnowledgeBody} from '../../src/records/types.js'
import {exp, expJson} from '../helpers/cli.js'
import {exampleRepo} from '../helpers/evolve.js'
import {exampleTrainedOnce} from '../helpers/cli-fixtures.js'
import {completion, startFakeLlm, type SeenRequest} from '../helpers/fake-llm.js'
import {GIT_ENV, git, tempDir} from '../helpers/repo.js'
import {INVENTORY, knowledge, POLICY} from '../helpers/loop.js'
import {INITIAL} from '../helpers/scenarios.js'

// LLM drafting, deterministic deciding (docs/loop.md, docs/mining.md): a model words claims
// and proposals from the evidence; what is proposed, where, and whether it is promoted stays
// deterministic. Tested against an OpenAI-compatible server on 127.0.0.1 over real HTTP.

const KEY = 'sk-test-drafting-0123456789abcdef'
const user = (r: SeenRequest) => String(r.body.messages.find((m: {role: string}) => m.role === 'user')?.content ?? '')

function item(rule: Parameters<typeof knowledge>[0]): KnowledgeItem {
  const rec = seal(prepare({kind: 'knowledge', body: knowledge(rule)}), {lane: 'a', lamport: 1, createdAt: '2026-01-01T00:00:00.000Z'}) as ExpRecord<'knowledge'>
  return {record: rec, rule, lamport: 1}
}

t.test('a drafted proposal keeps its scope; lines that are not the rule and reasons that do not name it are refused; exchanges are redacted', async t => {
  const llm = await startFakeLlm(req => {
    const ask = user(req)
    // a faithful answer for the inventory rule; for the policy rule, another rule and a reason that leaks the key
    if (ask.includes('get_inventory')) return {body: completion({content: `${renderRule(INVENTORY)}\nWhy: 29 runs that read \`get_inventory\` first passed.`})}
    return {body: completion({content: `Never call \`grant_access\`.\nWhy: trust me, ${KEY}`})}
  })
  t.teardown(() => llm.close())
  const items = [item(INVENTORY), item(POLICY)]
  const byId = new Map(items.map(k => [k.record.id, k]))
  const recall = buildRecall(items, {skill: 'onboarding', workflows: ['onboarding'], present: [], items: 8, tokens: 1000}).body
  const chosen = proposePatch({skill: 'onboarding', text: INITIAL().content, recall, knowledge: byId, rejected: [], maxRules: 2})!
  const d = drafter(`openai:writer`, '--proposer', {baseURL: llm.baseURL, apiKey: KEY, env: {}})
  const {proposed, exchanges} = await draftPatch(chosen, byId, d.chat, {text: INITIAL().content, redact: d.redact})
  t.equal(llm.requests.length, 2, 'one request per line, over HTTP')
  t.same(proposed.rules, chosen.rules, 'the same rules')
  t.same(parseRules(proposed.rendered.text), parseRules(chosen.rendered.text), 'the same lines in the skill')
  t.equal(proposed.rendered.normalized, chosen.rendered.normalized, 'the same change, so the same proposal id')
  t.same(exchanges.map(x => [x.line_accepted, x.reason_accepted]), [[true, true], [false, false]])
  t.equal(proposed.patch.edits[0]!.reason, '29 runs that read `get_inventory` first passed.', 'an accepted reason is kept')
  t.equal(proposed.patch.edits[1]!.reason, chosen.patch.edits[1]!.reason, 'a refused one falls back to the deterministic reason')
  t.notMatch(JSON.stringify(exchanges), new RegExp(KEY), 'the key never reaches the record')
  t.match(exchanges[1]!.response, /\[redacted\]/)
  t.throws(() => drafter('claude:x', '--proposer'), {code: 'E_USAGE', message: /--proposer "claude:x": expected openai:MODEL/})
  t.throws(() => drafter('openai:', '--miner-drafts'), {code: 'E_USAGE'})
})

t.test('drafted claims keep their rule, runs and links; the exchange is recorded, redacted, accepted or not', async t => {
  const replies = ['Checking stock with `get_inventory` before `assign_device` avoids handing out models that are gone.', 'Checking stock avoids handing out models that are gone.', '']
  const llm = await startFakeLlm((_r, i) => ({body: completion({content: replies[i] ?? ''})}))
  t.teardown(() => llm.close())
  const body = knowledge(INVENTORY, {slug: 'inv'})
  const drafts: RecordDraft<'knowledge'>[] = [0, 1, 2].map(() => ({kind: 'knowledge', body}))
  const out = await draftClaimTexts(drafts, createChat({model: 'writer', baseURL: llm.baseURL, env: {}}), {model: 'writer'})
  t.same(out.map(k => k.body.drafted!.accepted), [true, false, false], 'a reply dropping a backticked name, or empty, is refused')
  t.equal(out[0]!.body.claim.text, replies[0])
  t.same(out[0]!.body.miner, {name: 'exp-miner', version: '2', model: 'writer'})
  for (const k of out) {
    t.same([k.body.rule, k.body.evidence, k.body.statistics, k.body.status, k.body.unexplained], [body.rule, body.evidence, body.statistics, body.status, body.unexplained])
    t.match(k.body.drafted!.prompt, /Claim: Before `assign_device`/)
  }
  t.equal(out[1]!.body.claim.text, body.claim.text, 'refused: the deterministic words stay')
})

t.test('exp mine --miner-drafts and exp propose --proposer against a local server: words drafted, everything else deterministic, all on the record', async t => {
  const llm = await startFakeLlm(req => {
    const ask = user(req)
    const rule = /^Rule: (.*)$/m.exec(ask)?.[1]
    if (rule) return {body: completion({content: `${rule}\nWhy: the runs that did this passed (${/`[a-z_]+`/.exec(rule)![0]}); see ${KEY}.`})}
    const claim = /^Claim: (.*)$/m.exec(ask)?.[1] ?? ''
    return {body: completion({content: `Reviewed: ${claim}`})}
  })
  t.teardown(() => llm.close())
  // the example after `exp run train --repeat 1 --lane me` (test/helpers/cli-fixtures.ts)
  const repo = await exampleTrainedOnce(t)
  const env = {OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: KEY}
  const mined = await expJson<{knowledge: string[]}>(['mine', '--lane', 'me', '--miner-drafts', 'openai:writer'], {cwd: repo, env})
  t.ok(mined.knowledge.length > 0)
  const claims = await expJson<{id: string; body: KnowledgeBody}[]>(['ledger', '--kind', 'knowledge'], {cwd: repo})
  t.ok(claims.every(k => k.body.drafted?.model === 'writer'), 'every claim records its exchange')
  t.ok(claims.filter(k => k.body.drafted!.accepted).every(k => k.body.claim.text.startsWith('Reviewed: ')))
  // the proposal's id can be known before it is made (the same patch on the same main, here by
  // proposing in a copy): another lane that wrote a note under its drafts note's key first does
  // not refuse the proposal its exchanges
  const twin = path.join(tempDir(t), 'twin')
  cpSync(repo, twin, {recursive: true})
  const early = await expJson<{proposal: string}>(['propose', 'onboarding', '--lane', 'me', '--proposer', 'openai:writer'], {cwd: twin, env})
  const squat = await exp(['append', 'note', '-', '--lane', 'mallory', '--key', `drafts/${early.proposal}`], {cwd: repo, input: '{"text":"mine"}'})
  t.equal(squat.code, 0, squat.stderr)
  const prop = await expJson<{proposal: string; branch: string}>(['propose', 'onboarding', '--lane', 'me', '--proposer', 'openai:writer'], {cwd: repo, env})
  t.equal(prop.proposal, early.proposal, 'the id was known beforehand')
  const proposal = (await expJson<{id: string; body: {proposer: {model?: string}; patch: {edits: {reason: string}[]}}}[]>(['ledger', '--kind', 'proposal'], {cwd: repo})).find(p => p.id === prop.proposal)!
  t.same(proposal.body.proposer, {name: 'deterministic', version: '1', model: 'writer'})
  t.ok(proposal.body.patch.edits.every(e => e.reason.startsWith('the runs that did this passed')))
  const notes = await expJson<{body: {text: string; about?: string[]}}[]>(['ledger', '--kind', 'note'], {cwd: repo})
  const note = notes.find(n => (n.body.about ?? []).includes(prop.proposal))!
  const recorded = JSON.parse(note.body.text) as {model: string; exchanges: {line_accepted: boolean; response: string}[]}
  t.equal(recorded.model, 'writer')
  t.ok(recorded.exchanges.length > 0 && recorded.exchanges.every(x => x.line_accepted))
  const all = JSON.stringify([claims, notes, proposal])
  t.notMatch(all, new RegExp(KEY), 'no secret on the record')
  const diff = await git(repo, 'diff', 'main', prop.branch, '--', 'skills/onboarding/SKILL.md')
  t.match(diff, /^\+\d+\. (Before|If|Never) `/m, 'the skill gets rule lines the agent follows')
  t.ok(llm.requests.every(r => r.headers.authorization === `Bearer ${KEY}`), 'real requests with the key from the environment')
  const bad = await exp(['propose', 'onboarding', '--lane', 'me', '--proposer', 'gpt-4o'], {cwd: repo, env})
  t.equal(bad.code, 2)
  t.match(bad.stderr, /--proposer "gpt-4o": expected openai:MODEL/)
})

t.test('exp evolve --proposer and --miner-drafts: the loop runs with drafted words and decides as always', async t => {
  const llm = await startFakeLlm(req => {
    const ask = user(req)
    const rule = /^Rule: (.*)$/m.exec(ask)?.[1]
    if (rule) return {body: completion({content: `${rule}\nWhy: runs that followed it (${/`[a-z_]+`/.exec(rule)![0]}) passed.`})}
    return {body: completion({content: 'no backticks here'})}
  })
  t.teardown(() => llm.close())
  const repo = await exampleRepo(t)
  const env = {OPENAI_BASE_URL: llm.baseURL}
  const r = await expJson<{iterations: {decision?: {verdict: string}}[]; promoted: number}>(['evolve', '-n', '1', '--train-repeat', '1', '--eval-repeat', '1', '--lane', 'me', '--proposer', 'openai:writer', '--miner-drafts', 'openai:writer'], {cwd: repo, env})
  t.equal(r.iterations.length, 1)
  t.ok(r.iterations[0]!.decision, 'a decision was made on the drafted proposal')
  const claims = await expJson<{body: KnowledgeBody}[]>(['ledger', '--kind', 'knowledge'], {cwd: repo})
  t.ok(claims.length > 0 && claims.every(k => k.body.drafted && !k.body.drafted.accepted), 'every claim drafted; refused words leave the miner\'s')
  // the evolve run keeps its own notes (start, iterations); the drafts note is the one with exchanges
  const notes = (await expJson<{body: {text: string}}[]>(['ledger', '--kind', 'note'], {cwd: repo})).filter(n => n.body.text.includes('"exchanges"'))
  t.equal(notes.length, 1, 'the proposal\'s exchanges')
  t.match(JSON.parse(notes[0]!.body.text), {model: 'writer', exchanges: [{line_accepted: true}]})
})

// Found by an attack sweep: a reply holding `<HOME>ghp_…` passed the redactor as `~ghp_…`
// (shapes were masked before the home folder was replaced), which the store refuses: `exp mine
// --miner-drafts` stopped after its evidence was written, saying nothing was, and `exp propose
// --proposer` after its recall was.
t.test('a drafted reply holding a token glued to the home folder: mine and propose succeed, the token masked, in no git object', async t => {
  const home = tempDir(t, 'exp-home-')
  const glued = `${home}ghp_${'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123'}`
  const llm = await startFakeLlm(req => {
    const ask = user(req)
    const rule = /^Rule: (.*)$/m.exec(ask)?.[1]
    if (rule) return {body: completion({content: `${rule}\nWhy: the runs that did this passed (${/`[a-z_]+`/.exec(rule)![0]}), see ${glued}`})}
    const names = [...new Set(ask.match(/`[^`]+`/g) ?? [])].join(' ')
    return {body: completion({content: `Do ${names} as in ${glued}`})}
  })
  t.teardown(() => llm.close())
  // the example after `exp run train --repeat 1 --lane me` (test/helpers/cli-fixtures.ts)
  const repo = await exampleTrainedOnce(t)
  const env = {OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: KEY, HOME: home}
  const mined = await exp(['mine', '--lane', 'me', '--miner-drafts', 'openai:writer', '--json'], {cwd: repo, env})
  t.equal(mined.code, 0, mined.stderr)
  const claims = await expJson<{body: KnowledgeBody}[]>(['ledger', '--kind', 'knowledge'], {cwd: repo})
  t.ok(claims.length > 0 && claims.every(k => k.body.drafted?.accepted), 'every drafted claim is accepted')
  t.ok(claims.every(k => k.body.claim.text.endsWith(' as in ~[redacted]')), 'its words kept, the home folder replaced, the token masked')
  const prop = await exp(['propose', 'onboarding', '--lane', 'me', '--proposer', 'openai:writer', '--json'], {cwd: repo, env})
  t.equal(prop.code, 0, prop.stderr)
  const proposal = (await expJson<{body: {reason: string}}[]>(['ledger', '--kind', 'proposal'], {cwd: repo}))[0]!
  t.match(proposal.body.reason, /see ~\[redacted\]/)
  const objects = execFileSync('git', ['cat-file', '--batch-all-objects', '--batch'], {cwd: repo, env: GIT_ENV, maxBuffer: 1 << 28}).toString('latin1')
  t.equal(objects.indexOf('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123'), -1, 'the token is in no git object')
  t.equal(objects.indexOf(home), -1, 'nor the home folder')
})

// Found by a review: a reason drafted with an escape, a right-to-left override and a NUL was
// accepted (it named the rule's tool) and went into the proposal's commit message and, with a
// promotion, into main's merge: `git fsck --strict` failed with nulInCommit, a push to a remote
// with receive.fsckObjects was refused, and `git log` cut the message at the NUL.
t.test('a drafted reason with control or bidirectional characters is refused; no commit exp makes carries them', async t => {
  const llm = await startFakeLlm(req => {
    const rule = /^Rule: (.*)$/m.exec(user(req))?.[1] ?? ''
    return {body: completion({content: `${rule}\nWhy: ${/`[a-z_]+`/.exec(rule)?.[0] ?? ''} \u001b[2J\u202e\u0000 evil`})}
  })
  t.teardown(() => llm.close())
  // the example after `exp run train --repeat 1 --lane me` (test/helpers/cli-fixtures.ts)
  const repo = await exampleTrainedOnce(t)
  const env = {OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: KEY}
  await expJson(['mine', '--lane', 'me'], {cwd: repo})
  const prop = await expJson<{proposal: string; branch: string}>(['propose', 'onboarding', '--lane', 'me', '--proposer', 'openai:writer'], {cwd: repo, env})
  t.ok(llm.requests.length > 0)
  // eslint-disable-next-line no-control-regex -- the characters looked for
  const unsafe = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/
  t.notMatch(await git(repo, 'cat-file', 'commit', prop.branch), unsafe, "the proposal's commit")
  const proposal = (await expJson<{id: string; body: {reason: string; patch: {edits: {reason: string}[]}}}[]>(['ledger', '--kind', 'proposal'], {cwd: repo})).find(p => p.id === prop.proposal)!
  t.notMatch(JSON.stringify(proposal.body), /evil/, 'the deterministic reasons stand in')
  const note = (await expJson<{body: {text: string; about?: string[]}}[]>(['ledger', '--kind', 'note'], {cwd: repo})).find(n => (n.body.about ?? []).includes(prop.proposal))!
  const recorded = JSON.parse(note.body.text) as {exchanges: {line_accepted: boolean; reason_accepted: boolean}[]}
  t.ok(recorded.exchanges.every(x => x.line_accepted && !x.reason_accepted), 'the lines are accepted, the reasons refused, on the record')
  await git(repo, 'fsck', '--strict')
})

// Found by a sweep: with no key for api.openai.com, `evolve --proposer openai:…` ran its whole
// training and mining (234 traces, 25 knowledge records) before it failed, and `--agent openai:…`
// recorded each episode as failed after a minute of retries.
t.test('openai:MODEL with no OPENAI_API_KEY and the default endpoint: refused before anything runs or is written', async t => {
  const repo = await exampleRepo(t)
  const env = {OPENAI_API_KEY: '', OPENAI_BASE_URL: ''}
  const before = await git(repo, 'for-each-ref', 'refs/research')
  for (const args of [['evolve', '-n', '1', '--proposer', 'openai:gpt-4o-mini'], ['evolve', '-n', '1', '--miner-drafts', 'openai:gpt-4o-mini'], ['run', 'train', '--agent', 'openai:gpt-4o-mini'], ['mine', '--miner-drafts', 'openai:gpt-4o-mini']]) {
    const r = await exp(args, {cwd: repo, env})
    t.equal(r.code, 2, `exp ${args.join(' ')}: ${r.stderr}`)
    t.match(r.stderr, /openai: no API key for https:\/\/api\.openai\.com\/v1: OPENAI_API_KEY is not set/, args.join(' '))
  }
  t.equal(await git(repo, 'for-each-ref', 'refs/research'), before, 'nothing was written')
})
