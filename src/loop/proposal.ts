import {oneLine, prepare, recordId, type RecordDraft} from '../records/index.js'
import type {HypothesisBody, ProposalBody} from '../records/types.js'
import {hashObject} from '../records/object-id.js'
import {onLane, ownKey, ownKeys, refuseDrafts, type Ledger, type LedgerEntry, type RecordStore} from '../store/index.js'
import {hypotheses} from '../projections/index.js'
import {loadAuthority} from '../trust/load.js'
import type {Workspace} from '../workspace/port.js'
import {CandidateTakenError, ConflictError, ExpError, NotFoundError, ParseError, SchemaError} from '../errors/index.js'
import {checkPurpose, PURPOSE_FILE, type Purpose} from '../skills/index.js'
import {currentKnowledge, ruleKey, type KnowledgeItem} from './knowledge.js'
import {buildRecall} from './recall.js'
import {proposePatch, PROPOSER, type ProposedPatch, type RejectedPatch} from './proposer.js'
import type {Exchange} from './drafts.js'
import {knowledgePath, knowledgeYaml, proposedPurpose, purposePath, purposeText, skillPath, unknownSkill} from './files.js'
import {parseRules} from '../knowledge/index.js'

export interface ProposeOptions {
  skill: string
  lane: string
  mainRef: string
  /** propose on this commit instead of the main branch's tip (a resumed evolve run finishing an iteration that started there) */
  base?: string
  recall: {items: number; tokens: number}
  maxRules?: number
  now?: () => Date
  /** knowledge not to use: other lanes hold claims on hypotheses built from it */
  avoid?: ReadonlySet<string>
  /** use only this knowledge (rebasing a stale proposal onto the new main) */
  only?: ReadonlySet<string>
  /**
   * Called once the hypothesis is recorded, before the branch and the proposal: claim it.
   * Throwing (another lane holds it) stops here, so no two lanes build the same candidate.
   */
  claim?: (hypothesis: string) => Promise<void>
  /** an LLM drafts the lines' wording and reasons (src/loop/drafts.ts); the scope stays the deterministic proposer's */
  draft?: ProposalDrafter
  /**
   * an experiment's namespace (an `exp compare` arm, docs/compare.md; `matrix/<source>`,
   * docs/matrix.md): its hypotheses and proposals get ids of their own (salted with it) and
   * branches of their own (`exp/proposal/<namespace>/<id>`), so the same patch proposed in two
   * namespaces is two candidates, never one lane's claim on the other's
   */
  namespace?: string
}

/** Drafting of a proposed patch by a model: the patch with its new words, the exchanges (redacted), the model's name. */
export type ProposalDrafter = (p: ProposedPatch, items: ReadonlyMap<string, KnowledgeItem>, text: string) => Promise<{proposed: ProposedPatch; exchanges: Exchange[]; model: string}>

export interface CreatedProposal {
  proposal: string
  hypothesis: string
  recall: string
  branch: string
  head: string
  base: string
  version: number
  patch: ProposedPatch
}

/**
 * Earlier rejected patches, so the proposer never repeats one without new evidence: this
 * lane's rejects, and another lane's when it stands (src/trust: on evidence the policy
 * rejects). Any lane can write a reject: one resting on nothing kept every lane from a patch,
 * and with an "inert" comparison, from the knowledge behind it.
 */
export function rejectedPatches(ledger: Ledger, lane: string, stands: (id: string) => boolean): RejectedPatch[] {
  const out: RejectedPatch[] = []
  for (const e of ledger.select({kinds: ['decision']})) {
    if (e.lane !== lane && !stands(e.id)) continue
    const d = ledger.load<'decision'>(e)
    if (d.body.verdict !== 'reject') continue
    const p = ledger.get(d.body.proposal)
    if (!p) continue
    const body = ledger.load<'proposal'>(p).body
    const val = d.body.evaluations.map(id => ledger.get(id)).filter(e => e !== undefined).map(e => ledger.load<'evaluation'>(e!)).find(ev => ev.body.role === 'candidate' && ev.body.split === 'validation' && ev.body.comparison)
    const c = val?.body.comparison
    out.push({normalized: body.patch.normalized, knowledge: body.knowledge, inert: !!c && c.wins === 0 && c.losses === 0})
  }
  return out
}

/**
 * A skill's PURPOSE.yaml at a commit, checked as `exp skills lint` checks it (YAML, the schema,
 * the skill it names); a skill committed without one is at version 1. A folder at its path is
 * an error that names the file (it was taken for a missing file, and the commit exp then
 * wrote over it failed as a "corrupted tree").
 */
export async function readPurposeAt(files: Pick<Workspace, 'readFile' | 'pathId'>, commit: string, skill: string): Promise<Purpose> {
  const file = purposePath(skill)
  const at = `${commit.slice(0, 12)}:${file}`
  if ((await files.pathId(commit, file))?.kind === 'tree') throw new ExpError('E_USAGE', `${at} is a folder, not a file`, {hint: `${file} is the provenance of ${skillPath(skill)}, a YAML file (docs/skills.md): replace the folder with it and commit, \`exp skills lint skills/${skill}\` checks it`})
  const text = await files.readFile(commit, file)
  if (!text) return {skill, version: 1, status: 'accepted', derived_from: [], proposed_by: {human: 'initial'}}
  const {value, problems} = checkPurpose(text.toString('utf8'), skill)
  const syntax = problems.find(p => p.rule === 'purpose/yaml')
  if (syntax) throw new ParseError(at, syntax.message, syntax.line, syntax.column)
  if (!value || problems.length) throw new SchemaError(PURPOSE_FILE, problems.map(p => ({path: `line ${p.line}:`, message: p.message})), at)
  return value
}

/**
 * `exp propose`: recall (bounded, cited), then a patch from the deterministic proposer, then
 * the hypothesis it tests, an ordinary branch exp/proposal/<id> with ONE commit changing
 * SKILL.md, PURPOSE.yaml and the knowledge files it relies on, and the proposal record.
 * Idempotent: the proposal id derives from (skill, base commit, normalized patch) and the
 * commit's time from its parent, so a rerun after a kill finds everything already there.
 */
export async function createProposal(store: RecordStore, ws: Workspace, ledger: Ledger, o: ProposeOptions): Promise<CreatedProposal | undefined> {
  const main = o.base ?? (await ws.readRef(o.mainRef))
  if (!main) throw new NotFoundError('branch', o.mainRef, 'commit the skill on the main branch first (`exp init --example onboarding` does)')
  const text = (await ws.readFile(main, skillPath(o.skill)))?.toString('utf8')
  if (text === undefined) throw await unknownSkill(ws, main, o.mainRef, o.skill)
  // everything that can refuse the proposal is checked before the first record is written: a
  // propose that failed on its PURPOSE.yaml left a recall and a hypothesis, which the frontier
  // then offered as work with no proposal
  const purpose = await readPurposeAt(ws, main, o.skill)
  const version = purpose.version + 1
  // (past 2^53 - 1 an integer is not read back as written: version + 1 was the version itself)
  if (!Number.isSafeInteger(version)) throw new ExpError('E_USAGE', `${main.slice(0, 12)}:${purposePath(o.skill)} is at version ${purpose.version}, the largest exp counts to: a proposal of it would not be a new version`, {hint: `number the skill's versions from a smaller one (version in ${purposePath(o.skill)})`})
  const all = currentKnowledge(ledger)
  // knowledge to avoid takes its rule with it: another record of the same rule would build the same lines
  const avoided = new Set(all.filter(k => o.avoid?.has(k.record.id) && k.rule).map(k => ruleKey(k.rule!)))
  const knowledge = all.filter(
    k =>
      (!k.record.body.scope.skills?.length || k.record.body.scope.skills.includes(o.skill)) &&
      !o.avoid?.has(k.record.id) &&
      !(k.rule && avoided.has(ruleKey(k.rule))) &&
      (!o.only || o.only.has(k.record.id)),
  )
  const byId = new Map<string, KnowledgeItem>(knowledge.map(k => [k.record.id, k]))
  const workflows = [...new Set(knowledge.flatMap(k => k.record.body.scope.workflows))].sort()
  const recall = buildRecall(knowledge, {skill: o.skill, workflows, present: parseRules(text), items: o.recall.items, tokens: o.recall.tokens})
  const chosen = proposePatch({skill: o.skill, text, recall: recall.body, knowledge: byId, rejected: rejectedPatches(ledger, o.lane, await standingOf(ledger, ws, main, o.lane)), maxRules: o.maxRules, path: skillPath(o.skill)})
  if (!chosen) return undefined
  const drafted = o.draft ? await o.draft(chosen, byId, text) : undefined
  const proposed = drafted?.proposed ?? chosen
  const proposer = drafted ? {...PROPOSER, model: drafted.model} : PROPOSER
  const now = o.now
  const recallDraft: RecordDraft<'recall'> = {kind: 'recall', body: recall.body, cites: recall.cites}
  const hypothesis: HypothesisBody = {
    statement: `Adding ${proposed.rules.length} procedure line(s) to ${o.skill} raises validation success`,
    mechanism: proposed.reason,
    expected_effect: {metric: 'success_rate', direction: 'increase', split: 'validation'},
    conditions: [`${o.skill} at blob ${hashObject('blob', Buffer.from(text))}`, ...(o.namespace ? [`in namespace ${o.namespace}`] : [])],
    mechanism_family: [...new Set(proposed.knowledge.map(id => byId.get(id)!.record.body.claim.type))].sort().join('+'),
    target: {skill: o.skill, workflows, paths: [skillPath(o.skill)]},
    knowledge: proposed.knowledge,
  }
  const hypothesisDraft: RecordDraft<'hypothesis'> = {kind: 'hypothesis', body: hypothesis, cites: proposed.knowledge}
  // (ids are content: known, and the bodies checked against their schemas, before anything is written)
  const recallId = prepare(recallDraft).id
  const hypothesisId = prepare(hypothesisDraft).id
  // the model's exchanges, recorded in a note next to the proposal
  const exchanges = drafted ? JSON.stringify({model: drafted.model, exchanges: drafted.exchanges}) : undefined
  // and whatever the store would refuse for a secret, before the branch's commit or any record
  // is written (the recall was, before a refused hypothesis): the drafted words are redacted,
  // and reach the hypothesis, the proposal, the commit's message and the note
  refuseDrafts(
    [recallDraft, hypothesisDraft, {kind: 'proposal', body: {reason: proposed.reason, patch: {diff: proposed.rendered.diff, edits: proposed.rendered.edits}}}, ...(exchanges ? [{kind: 'note', body: {text: exchanges}}] : [])],
    `nothing was written: no branch, recall or proposal${drafted ? '; the model\'s words hold it: propose again without --proposer for the deterministic ones' : ''}`,
  )
  const candidate = `proposal/${o.namespace ? `${o.namespace}/` : ''}${o.skill}/${main}/${proposed.rendered.normalized}`
  const used = proposed.knowledge.map(k => byId.get(k)!.record)
  /** the proposal's key, id, branch and commit as the ledger `at` gives them (CandidateTakenError: another lane has the candidate) */
  const build = async (at: Ledger) => {
    // the same patch on the same base is the same candidate: another lane may have it (or
    // merely a record under its key: then this lane writes past it)
    const key = candidateKey(at, candidate, o.lane, hypothesisId, now?.() ?? new Date(), await standingOf(at, ws, main, o.lane))
    const id = recordId('proposal', '', key)
    const branch = `exp/proposal/${o.namespace ? `${o.namespace}/` : ''}${id}`
    // (what the proposal record says, field for field: src/loop/proposal-files.ts checks it)
    const nextPurpose = proposedPurpose({skill: o.skill, version, knowledge: used, proposer, lane: o.lane, proposal: id})
    const head = await ws.commitFiles({
      base: main,
      message: `exp: propose ${o.skill} v${version}\n\n${oneLine(proposed.reason)}\n\nExp-Proposal: ${id}\nExp-Knowledge: ${proposed.knowledge.join(' ')}\n`,
      files: [
        {path: skillPath(o.skill), content: Buffer.from(proposed.rendered.text)},
        {path: purposePath(o.skill), content: Buffer.from(purposeText(nextPurpose))},
        ...used.map(k => ({path: knowledgePath(k.body.slug), content: Buffer.from(knowledgeYaml(k))})),
      ],
    })
    return {key, id, branch, head, ref: `refs/heads/${branch}`}
  }
  // (its branch too: one that holds a commit of its own is refused here, not after the records).
  // A taken candidate is refused here too unless a claim comes first: a lane that claims (exp
  // evolve) learns from its claim first that the hypothesis is promoted or retired already, and
  // gives the claim back when the candidate is taken (so it is found after the claim, as before)
  const planned = await build(ledger).catch((e: unknown) => {
    if (e instanceof CandidateTakenError && o.claim) return undefined
    throw e
  })
  if (planned) await branchAt(planned, ws, main)
  const recallWritten = (await store.append(recallDraft, {lane: o.lane, now})).id
  const hypothesisWritten = (await store.append(hypothesisDraft, {lane: o.lane, now})).id
  if (recallWritten !== recallId || hypothesisWritten !== hypothesisId) throw new ExpError('E_INTERNAL', `the recall and hypothesis were written as ${recallWritten} and ${hypothesisWritten}, not ${recallId} and ${hypothesisId}`)
  await o.claim?.(hypothesisId)
  let at = await store.ledger()
  let id = ''
  let branch = ''
  let head = ''
  for (let tries = 0; ; tries++) {
    const b = await build(at)
    ;({id, branch, head} = b)
    const ref = b.ref
    const have = await branchAt(b, ws, main)
    if (have !== head) await ws.moveRef(ref, head, have)
    const body: ProposalBody = {
      skill: o.skill,
      branch,
      base: {commit: main, skill_blob: hashObject('blob', Buffer.from(text)), version: String(purpose.version)},
      head: {commit: head, skill_blob: hashObject('blob', Buffer.from(proposed.rendered.text)), version: String(version)},
      patch: {diff: proposed.rendered.diff, edits: proposed.rendered.edits as unknown as Record<string, unknown>[], size: proposed.rendered.size, sections: proposed.rendered.sections, normalized: proposed.rendered.normalized},
      reason: proposed.reason,
      knowledge: proposed.knowledge,
      recall: recallId,
      hypothesis: hypothesisId,
      proposer,
    }
    const draft: RecordDraft<'proposal'> = {kind: 'proposal', key: b.key, body, cites: [recallId, hypothesisId, ...proposed.knowledge]}
    try {
      await store.append(draft, {lane: o.lane, now})
      break
    } catch (e) {
      if (!(e instanceof ConflictError) || tries >= MAX_KEY_TRIES) throw e
      // lost the race for the key by a hair: the branch goes back to the winner's commit, and
      // the key is looked for again (the winner has the candidate, or this lane writes past it)
      at = await store.ledger()
      const winner = at.get(id) ? at.load<'proposal'>(id).body.head.commit : undefined
      if (winner && (await ws.readRef(ref)) === head) await ws.moveRef(ref, winner, head)
    }
  }
  // the model's words are on the record next to the proposal they shaped
  // (under a key anyone can guess, passed by if another lane holds it: store/own.ts ownKey)
  if (exchanges) await store.append({kind: 'note', key: ownKey(await store.ledger(), 'note', `drafts/${id}`, o.lane), body: {text: exchanges, about: [id], action: 'comment'}, cites: [id]}, {lane: o.lane, now})
  return {proposal: id, hypothesis: hypothesisId, recall: recallId, branch, head, base: main, version, patch: proposed}
}

/**
 * Where a proposal's branch is: nowhere yet, at the commit exp makes for it (a rerun), or at a
 * commit another exp process made for the same proposal (another lane building the same
 * candidate at the same moment: one commit on the base, at the base's time + 1 s, with the
 * proposal's trailer; the race for the record's key decides which stays). A branch anywhere
 * else was moved by someone — a hand edit committed on it, or amended — and is refused, never
 * reset: a rerun of `exp propose` moved it back to exp's commit, and the edit was then
 * reachable from nothing.
 */
async function branchAt(b: {id: string; branch: string; ref: string; head: string}, ws: Workspace, base: string): Promise<string | undefined> {
  const have = await ws.readRef(b.ref)
  if (have === undefined || have === b.head) return have
  const [c, parent] = await Promise.all([ws.readCommit(have).catch(() => undefined), ws.readCommit(base)])
  if (c && c.parents.length === 1 && c.parents[0] === base && c.time === parent.time + 1 && c.message.includes(`\nExp-Proposal: ${b.id}\n`)) return have
  throw new ExpError('E_CONFLICT', `${b.branch} is at ${have.slice(0, 12)}, not at ${b.head.slice(0, 12)}, the commit of this proposal: it was moved or has commits of its own, and exp does not reset it`, {
    hint: `keep the edit on a branch of its own (\`git branch -m ${b.branch} NAME\`) or delete the branch (\`git branch -D ${b.branch}\`), then propose again; nothing was recorded`,
    data: {branch: b.branch, at: have, head: b.head},
  })
}

/** times a proposal's key is looked for again after another record took it first */
const MAX_KEY_TRIES = 3

/**
 * The key this lane writes its proposal of a candidate under (`base`, or a key of its own made
 * from it: store/own.ts), or CandidateTakenError naming the lane that has the candidate. The
 * same patch on the same base is one candidate, built and judged once: another lane's proposal
 * under its key takes it while that lane stands behind it, holding a live claim of the
 * hypothesis its proposal names (the claims of docs/frontier.md, at most 366 days) or a
 * decision of it that stands (src/trust). Any lane can write a record under a key anyone can
 * compute: a record alone took the candidate from every other lane for good.
 * This lane's own proposal of it is found again (a rerun); from another hypothesis of its own,
 * the candidate is taken by this lane already.
 */
export function candidateKey(ledger: Ledger, base: string, lane: string, hypothesis: string, now: Date, stands: (id: string) => boolean): string {
  const hypothesisOf = (e: LedgerEntry) => (e.kind === 'proposal' ? ledger.load<'proposal'>(e).body.hypothesis : undefined)
  // this lane's own proposal of it first, under whichever of its keys it went (a rerun: the
  // record it wrote past may have a live claim behind it by now)
  let n = 0
  for (const key of ownKeys(base, lane)) {
    const e = ledger.get(recordId('proposal', '', key))
    if (e && onLane(ledger, e, lane)) {
      const named = hypothesisOf(e)
      if (named === hypothesis) return key
      throw new CandidateTakenError(e.id, lane, named, hypothesis, true)
    }
    // (past the key itself, a free one ends them: store/own.ts, ownEntry)
    if (!e && n++ > 0) break
  }
  let claims: Map<string, string> | undefined
  for (const key of ownKeys(base, lane)) {
    const e = ledger.get(recordId('proposal', '', key))
    if (!e) return key
    const named = hypothesisOf(e)
    claims ??= new Map(hypotheses(ledger, now).flatMap(h => (h.claim ? [[h.id, h.claim.holder] as const] : [])))
    // (a decision of it: one whose proposal it is, not one of another proposal that also cites it)
    const behind = (named !== undefined && claims.get(named) === e.lane) || ledger.select({kinds: ['decision'], cites: e.id}).some(d => ledger.load<'decision'>(d).body.proposal === e.id && stands(d.id))
    if (behind) throw new CandidateTakenError(e.id, e.lane, named, hypothesis)
  }
  return base
}

/**
 * Whether a decision (or evaluation) stands, by the trust checks at `main` (src/trust): loaded
 * only when another lane has written a decision (this lane's own are its own work).
 */
async function standingOf(ledger: Ledger, ws: Workspace, main: string, lane: string): Promise<(id: string) => boolean> {
  if (!ledger.select({kinds: ['decision']}).some(e => e.lane !== lane)) return () => false
  return (await loadAuthority(ledger, ws, {at: main})).admit
}
