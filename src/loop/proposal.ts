import {parseYamlOrJson, recordId, type RecordDraft} from '../records/index.js'
import type {HypothesisBody, ProposalBody} from '../records/types.js'
import {hashObject} from '../records/object-id.js'
import {ownKey, type Ledger, type RecordStore} from '../store/index.js'
import type {Workspace} from '../workspace/port.js'
import {CandidateTakenError, ConflictError, NotFoundError} from '../errors/index.js'
import type {Purpose} from '../skills/index.js'
import {currentKnowledge, ruleKey, type KnowledgeItem} from './knowledge.js'
import {buildRecall} from './recall.js'
import {proposePatch, PROPOSER, type ProposedPatch, type RejectedPatch} from './proposer.js'
import type {Exchange} from './drafts.js'
import {knowledgePath, knowledgeYaml, purposePath, purposeText, skillPath} from './files.js'
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

/** Earlier rejected patches, so the proposer never repeats one without new evidence. */
export function rejectedPatches(ledger: Ledger): RejectedPatch[] {
  const out: RejectedPatch[] = []
  for (const e of ledger.select({kinds: ['decision']})) {
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

export async function readPurposeAt(files: Pick<Workspace, 'readFile'>, commit: string, skill: string): Promise<Purpose> {
  const text = await files.readFile(commit, purposePath(skill))
  return text ? ((await parseYamlOrJson(text.toString('utf8'), `${commit.slice(0, 12)}:${purposePath(skill)}`)) as Purpose) : {skill, version: 1, status: 'accepted', derived_from: [], proposed_by: {human: 'initial'}}
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
  if (text === undefined) throw new NotFoundError('skill on main', `${o.mainRef}:${skillPath(o.skill)}`, 'list the skills on main with `git ls-tree --name-only MAIN skills/` (MAIN: the main branch)')
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
  const chosen = proposePatch({skill: o.skill, text, recall: recall.body, knowledge: byId, rejected: rejectedPatches(ledger), maxRules: o.maxRules, path: skillPath(o.skill)})
  if (!chosen) return undefined
  const drafted = o.draft ? await o.draft(chosen, byId, text) : undefined
  const proposed = drafted?.proposed ?? chosen
  const proposer = drafted ? {...PROPOSER, model: drafted.model} : PROPOSER
  const now = o.now
  const recallId = (await store.append({kind: 'recall', body: recall.body, cites: recall.cites}, {lane: o.lane, now})).id
  const purpose = await readPurposeAt(ws, main, o.skill)
  const version = purpose.version + 1
  const hypothesis: HypothesisBody = {
    statement: `Adding ${proposed.rules.length} procedure line(s) to ${o.skill} raises validation success`,
    mechanism: proposed.reason,
    expected_effect: {metric: 'success_rate', direction: 'increase', split: 'validation'},
    conditions: [`${o.skill} at blob ${hashObject('blob', Buffer.from(text))}`, ...(o.namespace ? [`in namespace ${o.namespace}`] : [])],
    mechanism_family: [...new Set(proposed.knowledge.map(id => byId.get(id)!.record.body.claim.type))].sort().join('+'),
    target: {skill: o.skill, workflows, paths: [skillPath(o.skill)]},
    knowledge: proposed.knowledge,
  }
  const hypothesisId = (await store.append({kind: 'hypothesis', body: hypothesis, cites: proposed.knowledge}, {lane: o.lane, now})).id
  await o.claim?.(hypothesisId)
  const key = `proposal/${o.namespace ? `${o.namespace}/` : ''}${o.skill}/${main}/${proposed.rendered.normalized}`
  const id = recordId('proposal', '', key)
  // the same patch on the same base is the same candidate: if another lane built it from its
  // own hypothesis, it is theirs (checked again when the append finds it)
  const taken = (l: Ledger) => {
    const e = l.get(id)
    const other = e ? l.load<'proposal'>(e).body.hypothesis : undefined
    if (e && other !== hypothesisId) throw new CandidateTakenError(id, e.lane, other, hypothesisId)
  }
  if (o.claim) taken(await store.ledger())
  const branch = `exp/proposal/${o.namespace ? `${o.namespace}/` : ''}${id}`
  const used = proposed.knowledge.map(k => byId.get(k)!.record)
  const nextPurpose: Purpose = {
    skill: o.skill,
    version,
    status: 'proposed',
    derived_from: used.map(k => k.body.slug),
    knowledge: proposed.knowledge,
    proposed_by: {proposer: PROPOSER.name, version: PROPOSER.version, lane: o.lane, ...(drafted ? {model: drafted.model} : {})},
    proposal: id,
  }
  const head = await ws.commitFiles({
    base: main,
    message: `exp: propose ${o.skill} v${version}\n\n${proposed.reason}\n\nExp-Proposal: ${id}\nExp-Knowledge: ${proposed.knowledge.join(' ')}\n`,
    files: [
      {path: skillPath(o.skill), content: Buffer.from(proposed.rendered.text)},
      {path: purposePath(o.skill), content: Buffer.from(purposeText(nextPurpose))},
      ...used.map(k => ({path: knowledgePath(k.body.slug), content: Buffer.from(knowledgeYaml(k))})),
    ],
  })
  const ref = `refs/heads/${branch}`
  const have = await ws.readRef(ref)
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
  const draft: RecordDraft<'proposal'> = {kind: 'proposal', key, body, cites: [recallId, hypothesisId, ...proposed.knowledge]}
  try {
    await store.append(draft, {lane: o.lane, now})
  } catch (e) {
    if (e instanceof ConflictError) {
      // lost the race by a hair: give the branch back to the winner's commit, then say so
      const l = await store.ledger()
      const winner = l.get(id) ? l.load<'proposal'>(id).body.head.commit : undefined
      if (winner && (await ws.readRef(ref)) === head) await ws.moveRef(ref, winner, head)
      taken(l)
    }
    throw e
  }
  // the model's words are on the record next to the proposal they shaped
  // (under a key anyone can guess, passed by if another lane holds it: store/own.ts ownKey)
  if (drafted) await store.append({kind: 'note', key: ownKey(await store.ledger(), 'note', `drafts/${id}`, o.lane), body: {text: JSON.stringify({model: drafted.model, exchanges: drafted.exchanges}), about: [id], action: 'comment'}, cites: [id]}, {lane: o.lane, now})
  return {proposal: id, hypothesis: hypothesisId, recall: recallId, branch, head, base: main, version, patch: proposed}
}
