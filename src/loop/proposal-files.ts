import type {ExpRecord} from '../records/index.js'
import type {Ledger} from '../store/index.js'
import {onLane} from '../store/index.js'
import type {Workspace} from '../workspace/port.js'
import {BoundaryError} from '../errors/index.js'
import {checkPurpose, type Purpose} from '../skills/index.js'
import {knowledgePath, knowledgeYaml, proposedPurpose, purposePath, purposeText, skillPath} from './files.js'
import {readPurposeAt} from './proposal.js'
import {assertProposalScope} from './proposal-scope.js'

/**
 * What a proposal's branch must hold besides its skill: what `exp propose` writes for its
 * record, byte for byte. Its PURPOSE.yaml is proposedPurpose() of the record (its skill, id,
 * proposer and lane, the knowledge it cites, the version at its base + 1), and each
 * knowledge/<slug>.yaml it changes (and every one it cites) is knowledgeYaml() of a knowledge
 * record the proposal cites. Its SKILL.md is the blob the record names.
 *
 * proposalViolations checks the paths only: without this, another lane's hand-made branch
 * carried a PURPOSE.yaml of its own (a version of 2^53 - 1 that stopped every later proposal,
 * proposed by a human and another lane, a decision that does not exist) and a knowledge file
 * no record wrote onto main with its promotion, and `exp promote` kept every field of it.
 *
 * Returns the problems (each naming the file and the field) and the PURPOSE.yaml the records
 * give (what `exp promote` marks accepted: never the branch's own file).
 */
export async function proposalFileProblems(ws: Workspace, ledger: Ledger, proposal: ExpRecord<'proposal'>): Promise<{problems: string[]; purpose?: Purpose}> {
  const p = proposal.body
  const problems: string[] = []
  const file = purposePath(p.skill)
  const skill = await ws.pathId(p.head.commit, skillPath(p.skill))
  if (skill?.oid !== p.head.skill_blob) problems.push(`${skillPath(p.skill)}: ${skill ? `blob ${skill.oid.slice(0, 12)}` : 'not there'}, not the blob ${p.head.skill_blob.slice(0, 12)} the proposal record names (head.skill_blob)`)
  const from = (await readPurposeAt(ws, p.base.commit, p.skill)).version
  const version = from + 1
  // (past 2^53 - 1 an integer is not read back as written: version + 1 is the version itself)
  if (!Number.isSafeInteger(version)) problems.push(`${file}: version ${from} at the base is the largest exp counts to: no proposal of it is a new version`)
  if (p.base.version !== undefined && p.base.version !== String(from)) problems.push(`the record's base.version is ${JSON.stringify(p.base.version)}, not ${from} (${file} at its base)`)
  if (p.head.version !== undefined && p.head.version !== String(version)) problems.push(`the record's head.version is ${JSON.stringify(p.head.version)}, not ${version} (the version at its base + 1)`)
  const cited: ExpRecord<'knowledge'>[] = []
  for (const id of p.knowledge) {
    const e = ledger.get(id)
    if (e?.kind === 'knowledge') cited.push(ledger.load<'knowledge'>(e))
    else problems.push(`knowledge: ${id} is not a knowledge record of this ledger`)
  }
  if (problems.length) return {problems}
  const text = (await ws.readFile(p.head.commit, file))?.toString('utf8')
  const found = text === undefined ? undefined : checkPurpose(text, p.skill).value
  // the lane of the record (or of a copy of it with the same bytes, another clone's)
  const shown = ledger.get(proposal.id)
  const claimed = found?.proposed_by.lane
  const lane = claimed !== undefined && (claimed === proposal.lane || (shown?.digest === proposal.digest && onLane(ledger, shown, claimed))) ? claimed : proposal.lane
  const purpose = proposedPurpose({skill: p.skill, version, knowledge: cited, proposer: p.proposer, lane, proposal: proposal.id})
  let expected: string
  try {
    expected = purposeText(purpose)
  } catch (e) {
    // (two cited records of one slug: not a PURPOSE.yaml exp writes)
    return {problems: [`${file}: the proposal record gives no valid one: ${e instanceof Error ? e.message : String(e)}`]}
  }
  if (text !== expected) problems.push(...purposeProblems(file, text, found, purpose))
  // knowledge/<slug>.yaml: each one it changes, and each one it cites, is the record's text
  const want = new Map(cited.map(k => [knowledgePath(k.body.slug), k]))
  const changed = (await ws.changedPaths(p.base.commit, p.head.commit)).filter(f => f.startsWith('knowledge/'))
  for (const f of new Set([...changed, ...want.keys()])) {
    const k = want.get(f)
    if (!k) {
      problems.push(`${f}: no knowledge record the proposal cites has its slug (exp propose writes knowledge/<slug>.yaml only for the knowledge it cites, from the record)`)
      continue
    }
    const have = (await ws.readFile(p.head.commit, f))?.toString('utf8')
    if (have !== knowledgeYaml(k)) problems.push(`${f}: ${have === undefined ? 'not there' : 'not the text'}: exp writes it from knowledge record ${k.id}, which the proposal cites`)
  }
  return problems.length ? {problems} : {problems, purpose}
}

const REASON: Record<string, (p: Purpose) => string> = {
  skill: () => "the proposal's skill",
  version: () => 'the version at its base + 1',
  status: () => 'a proposal is proposed: `exp promote` marks it accepted',
  derived_from: () => 'the slugs of the knowledge the proposal record cites',
  knowledge: () => 'the knowledge the proposal record cites',
  proposed_by: p => `the record's proposer, on lane ${p.proposed_by.lane}`,
  evaluation: () => '`exp promote` writes it from evaluator records, never a proposal',
  proposal: () => "the proposal record's id",
  decision: () => 'no proposal names a decision',
}

/** Each field of the branch's PURPOSE.yaml that is not the records' (nested ones by their path), with what it must be and why. */
function purposeProblems(file: string, text: string | undefined, found: Purpose | undefined, want: Purpose): string[] {
  if (text === undefined) return [`${file}: not there (exp propose writes it)`]
  if (!found) {
    const c = checkPurpose(text, want.skill)
    return [`${file}: not a valid PURPOSE.yaml (${c.problems.map(x => x.message).join('; ')})`]
  }
  const show = (v: unknown) => (v === undefined ? 'absent' : JSON.stringify(v))
  const out: string[] = []
  const have = found as unknown as Record<string, unknown>
  const must = want as unknown as Record<string, unknown>
  for (const key of Object.keys(REASON)) {
    const a = have[key]
    const b = must[key]
    if (JSON.stringify(a) === JSON.stringify(b)) continue
    const nested = (x: unknown) => (x && typeof x === 'object' && !Array.isArray(x) ? (x as Record<string, unknown>) : undefined)
    const na = nested(a)
    const nb = nested(b)
    if (na && nb) {
      for (const sub of [...new Set([...Object.keys(nb), ...Object.keys(na)])]) if (JSON.stringify(na[sub]) !== JSON.stringify(nb[sub])) out.push(`${file}: ${key}.${sub} is ${show(na[sub])}, not ${show(nb[sub])} (${REASON[key]!(want)})`)
    } else out.push(`${file}: ${key} is ${show(a)}, not ${show(b)} (${REASON[key]!(want)})`)
  }
  // (every field as the records say, in other words: comments, order or layout of its own)
  if (!out.length) out.push(`${file}: not the text exp propose writes for the record (its fields are, its comments or layout are not)`)
  return out
}

/**
 * Refuse a proposal that is not its own branch, changes more than its skill
 * (assertProposalScope), or holds a PURPOSE.yaml or knowledge file that is not what
 * `exp propose` writes for its record (proposalFileProblems): before anything is evaluated,
 * recorded or merged. Returns the PURPOSE.yaml the records give.
 */
export async function assertProposalFiles(ws: Workspace, ledger: Ledger, proposal: ExpRecord<'proposal'>): Promise<Purpose> {
  await assertProposalScope(ws, proposal.id, proposal.body)
  const {problems, purpose} = await proposalFileProblems(ws, ledger, proposal)
  if (!problems.length && purpose) return purpose
  throw new BoundaryError(proposal.id, problems, {what: 'proposal', hint: `a proposal's branch holds what \`exp propose\` writes for its record: its skill's SKILL.md, a PURPOSE.yaml made from the record and knowledge/<slug>.yaml of the knowledge it cites; nothing was evaluated or promoted (make a new proposal with \`exp propose ${proposal.body.skill}\`)`})
}
