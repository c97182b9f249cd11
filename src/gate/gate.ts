import {mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import {assertResearchFile, parseYamlOrJson} from '../records/index.js'
import type {ResearchContract} from '../records/types.js'
import type {RecordStore} from '../store/index.js'
import {ExpError, NotFoundError, UsageError} from '../errors/index.js'
import {runEvaluation, type RunResult} from '../evals/runner/run.js'
import {runPaired} from '../evals/runner/paired.js'
import {compareRuns, type Comparison} from '../evals/compare.js'
import {afterPass, holdoutChecks, looksOf, validationChecks, verdictOf, type Check} from '../loop/policy.js'
import type {PromotionPolicy} from '../records/types.js'
import type {Reuse} from '../evals/runner/plan.js'
import {gateShard, vouchedBy, type GateShardReport, type Shard} from './shards.js'
import {loadPolicy} from '../loop/promote.js'
import type {EvalRunOptions} from '../loop/evaluate.js'
import {skillPath} from '../loop/files.js'
import {CONTRACT_YAML} from '../research/templates.js'
import {SEALED_FILE} from '../scenarios/sealed.js'
import type {Workspace} from '../workspace/port.js'
import {checkScope, codeSpan, shownPath, skillsTouched, type ScopeReport} from './scope.js'
import {boundaryOf} from './boundary.js'
import {gateContracts, type GateContract} from './contracts.js'
import {matchesAny} from './glob.js'
import {contractsAt} from '../contracts/load.js'
import type {Contract} from '../contracts/types.js'
import {makeRedactor} from '../redact/index.js'
import {pct} from '../reports/format.js'

export interface GateSkill {
  skill: string
  /** passes: with a sequential policy, the pass the comparison stopped after, of at most looks */
  validation: {base: number; head: number; comparison: Comparison; evaluations: string[]; passes?: number; looks?: number; episodes: number; from_shards?: number}
  /** absent when the held-out split is sealed and no key is available (the gate cannot certify) */
  holdout?: {base: number; head: number; evaluations: string[]}
  checks: Check[]
  verdict: 'accept' | 'reject'
}

export interface GateResult {
  base: string
  head: string
  scope: ScopeReport
  skills: GateSkill[]
  /** research contracts judged by a command whose editable files changed (docs/contracts.md) */
  contracts: GateContract[]
  /** protected files the base changed since the pull request branched: it must be brought up to the base before it is judged */
  stale: string[]
  passed: boolean
  /** false when the held-out split was sealed and could not be opened: validation only, not a promotion */
  certified: boolean
  reasons: string[]
  notes: string[]
  /** `--shard I/N`: this job ran its slice of the validation episodes only; nothing was decided */
  shard?: GateShardReport
  /** command contracts whose editable files changed together with other files: not judged, split the pull request */
  mixed?: {contract: string; others: string[]}[]
}

export interface GateOptions extends EvalRunOptions {
  base: string
  head: string
  repeat?: number
  approvedBy?: string
  /** run this slice of the validation episodes of every changed skill, record them with a receipt, decide nothing */
  shard?: Shard
  /** the validation episodes were run by this many shard jobs (lanes <lane>-shard-<I>): reuse what their receipts vouch for */
  shards?: number
  /** where the work trees of contract attempts the gate evaluates go (with git: .git/exp/worktrees) */
  worktreeRoot: string
  /** what a contract's evaluator command must not see: the repository and its git dir */
  hide?: readonly string[]
}

/**
 * What a pull request may change, from the base: every research contract there (an editable
 * path of any of them, protected by none), or a repository's older .research/contract.yaml.
 */
async function scopeAt(ws: Workspace, commit: string): Promise<{editable_scope: string[]; protected_scope: string[]; contracts: Contract[]}> {
  const contracts = await contractsAt(ws, commit)
  if (contracts.length) return {editable_scope: contracts.flatMap(c => c.editable_scope), protected_scope: contracts.flatMap(c => c.protected_scope), contracts}
  const bytes = await ws.readFile(commit, '.research/contract.yaml')
  const doc = ((await parseYamlOrJson(bytes ? bytes.toString('utf8') : CONTRACT_YAML, `${commit.slice(0, 12)}:.research/contract.yaml`)) ?? {}) as ResearchContract
  assertResearchFile('contract', doc, '.research/contract.yaml')
  return {editable_scope: doc.editable_scope, protected_scope: doc.protected_scope, contracts: []}
}

/** The base commit's scenarios, written to a temporary folder: what the gate judges with, whatever the head did to scenarios/. */
async function scenariosAt(ws: Workspace, commit: string, dir: string): Promise<string> {
  // (the base's, trusted: its sealed held-out split may be large)
  const files = await ws.listFiles(commit, 'scenarios', {max: Infinity})
  if (!files.length) throw new NotFoundError('scenarios on the base', `${commit.slice(0, 12)}:scenarios/`, 'commit the scenarios on the main branch (`exp init --example onboarding` does)')
  const out = await mkdtemp(path.join(dir, 'exp-gate-scenarios-'))
  for (const f of files) {
    await mkdir(path.dirname(path.join(out, f.path)), {recursive: true})
    await writeFile(path.join(out, f.path), f.content)
  }
  return out
}

/**
 * `exp gate`: what CI runs on a pull request (docs/trust.md). Everything that judges comes
 * from the BASE: the contract, the policy, the scenarios (a pull request cannot loosen its
 * own gate or move its own tests). Changed paths are read without rename detection, so a
 * renamed protected file is a protected deletion. Every changed skill is then evaluated by
 * the gate itself — head against base, on validation and, with the held-out key, held-out —
 * without reusing any record that came with the pull request; records go to the gate's lane.
 */
export async function gate(store: RecordStore, ws: Workspace, o: GateOptions): Promise<GateResult> {
  const base = await ws.resolve(o.base)
  const head = await ws.resolve(o.head)
  // actions/checkout fetches one commit unless told fetch-depth: 0: a gate in a shallow clone
  // had no base to find, or no merge base, and then blamed the pull request for the base's changes
  const unshallow = 'this clone is shallow (actions/checkout\'s default, fetch-depth: 1): fetch the whole history (fetch-depth: 0 in the workflow, or `git fetch --unshallow origin`), then run the gate again'
  if (!base) throw new NotFoundError('base revision', o.base, (await ws.shallow()) ? unshallow : 'fetch it (git fetch origin), or pass --base REF (in a pull request: origin/<target branch>)')
  if (!head) throw new NotFoundError('head revision', o.head, 'pass --head REF: a branch, tag or commit of this repository (default HEAD)')
  const mb = await ws.mergeBase(base, head)
  if (!mb) {
    throw new UsageError(`${o.head} and ${o.base} have no commit in common: the gate judges a change against the base it was made on`, (await ws.shallow()) ? unshallow : `make the change on a branch of ${o.base} (a branch made with --orphan, or from another repository, has no base to compare with)`)
  }
  const changed = await ws.changedPaths(mb, head)
  const scopes = await scopeAt(ws, base)
  const scope = await boundaryOf(ws, {base, head, changed}, scopes)
  // what judges is the base's, but a head is evaluated where it stands, and its comparison
  // starts at the merge base: a pull request branched before the base changed its evaluator,
  // contract, scenarios or policy would meet the old ones. It is brought up to the base first.
  const stale = mb === base ? [] : checkScope(await ws.changedPaths(mb, base), scopes).protected
  const reasons: string[] = []
  const notes: string[] = []
  const shown = (ps: readonly string[]) => ps.map(shownPath).join(', ')
  if (scope.outside.length) reasons.push(`outside the editable scope: ${shown(scope.outside)}`)
  if (scope.protected.length) reasons.push(`protected paths changed: ${shown(scope.protected)}${scope.standIns.length ? ` (${shown(scope.standIns)}: what a runtime loads in place of protected code — a package, module, cache or node_modules/ package of its name, docs/contracts.md)` : ''}`)
  if (scope.links.length) reasons.push(`symbolic links, submodules or .gitattributes/.gitmodules files changed: ${shown(scope.links)} (a pull request may change regular files only, and not how git checks files out)`)
  // each contract judges the base with its own editable files changed: a pull request that
  // changes a command contract's files and others (another contract's, a skill) cannot be
  // judged under it (its evaluation would cross its boundary)
  const mixed = scopes.contracts.filter(c => c.dev_eval.evaluator === 'command' && changed.some(p => matchesAny(p, c.editable_scope))).map(c => ({contract: c.name, others: changed.filter(p => !matchesAny(p, c.editable_scope))})).filter(x => x.others.length)
  for (const m of mixed) reasons.push(`the pull request changes files of contract ${m.contract} and others (${shown(m.others.slice(0, 8))}${m.others.length > 8 ? ` (+${m.others.length - 8} more)` : ''}): a contract judges a pull request that changes its own editable files only; split it into one pull request a contract`)
  if (stale.length) reasons.push(`the pull request is based on an older ${o.base} (${mb.slice(0, 12)}), and the base has changed protected files since: ${shown(stale.slice(0, 8))}${stale.length > 8 ? ` (+${stale.length - 8} more)` : ''}; merge or rebase it onto the base, so that the base's evaluator, contract and data judge it`)
  const skills: GateSkill[] = []
  let contracts: GateContract[] = []
  const sealed = await ws.hasFile(mb, `scenarios/${SEALED_FILE}`)
  const certified = !sealed || !!o.holdoutKey
  if (!certified && !o.shard) notes.push('the held-out split is sealed and no key is available (EXP_HOLDOUT_KEY): validation only, this gate cannot certify a promotion')
  let shard: GateShardReport | undefined
  if (scope.ok && !stale.length && !mixed.length) {
    contracts = await gateContracts(store, ws, {contracts: scopes.contracts, changed, base: mb, head, certified: !!o.holdoutKey || !scopes.contracts.some(c => c.private_data.length), lane: o.lane, worktreeRoot: o.worktreeRoot, ...(o.hide ? {hide: o.hide} : {}), redact: o.redact ?? makeRedactor({env: process.env}), seed: o.seed ?? 42, ...(o.holdoutKey ? {holdoutKey: o.holdoutKey.key} : {}), ...(o.now ? {now: o.now} : {})})
    for (const c of contracts) if (c.verdict === 'reject') reasons.push(...c.checks.filter(x => !x.passed).map(x => `${c.contract}: ${x.name}: ${x.detail}`))
    const touched = skillsTouched(changed)
    const tmp = await mkdtemp(path.join(os.tmpdir(), 'exp-gate-'))
    try {
      const policy = touched.length ? (await loadPolicy(ws, base)).policy : undefined
      const scenariosDir = touched.length ? await scenariosAt(ws, mb, tmp) : ''
      for (const skill of touched) {
        const file = skillPath(skill)
        const [atBase, atHead] = [await ws.readFile(mb, file), await ws.readFile(head, file)]
        if (atBase && !atHead) throw new ExpError('E_USAGE', `the head removes ${file}`, {hint: 'a gate evaluates skills that exist on both sides'})
        // a change is judged against the same skill on the base: a new skill has nothing to be judged against
        if (!atBase) throw new ExpError('E_USAGE', atHead ? `the head adds ${file}: the gate judges a change to a skill against that skill on the base, and the base has none` : `the head changes skills/${skill}/, and neither side has ${file}`, {hint: 'a new skill lands on the main branch in a reviewed commit of its own (SKILL.md with its PURPOSE.yaml); pull requests then change it'})
      }
      const common = {...o, scenariosDir, workspace: ws}
      const sides = (skill: string) => ({base: `${mb}:${skillPath(skill)}`, head: `${head}:${skillPath(skill)}`})
      const looks = policy ? looksOf(policy) : 1
      const repeat = looks > 1 ? looks : (o.repeat ?? 2)
      if (o.shard) {
        shard = await gateShard(store, {...common, split: 'validation', repeat, shard: o.shard, range: {base: mb, head}, skills: touched.map(skill => ({skill, ...sides(skill)}))})
        return {base: mb, head, scope, skills, contracts, stale, passed: true, certified: false, reasons, notes: [`shard ${o.shard.index}/${o.shard.count}: ${shard.recorded} validation episode(s) run, receipts on lane ${shard.lane}; the job with --shards ${o.shard.count} decides`], shard}
      }
      for (const skill of touched) {
        const vouched = o.shards ? vouchedBy(await store.ledger(), {lane: o.lane, shards: o.shards, range: {base: mb, head}, skill}) : undefined
        const v = await validationPair(store, policy!, {...common, repeat, reuse: vouched ? {only: vouched} : 'none'}, sides(skill), o.approvedBy)
        const from = vouched ? v.b.resumed + v.h.resumed : undefined
        const ho = certified ? await holdoutPair(store, {...common, repeat: o.repeat ?? 2, reuse: 'none'}, sides(skill)) : undefined
        const input = {candidate: {...v.h.body, comparison: v.comparison}, baseline: v.b.body, approvedBy: o.approvedBy, ...(ho ? {holdout: {candidate: ho.h.body, baseline: ho.b.body}} : {})}
        const checks = [...validationChecks(policy!, input), ...(ho ? holdoutChecks(policy!, input) : [])]
        const {verdict, reasons: why} = verdictOf(checks)
        if (verdict === 'reject') reasons.push(...why.map(r => `${skill}: ${r}`))
        skills.push({skill, validation: {base: v.b.success_rate, head: v.h.success_rate, comparison: v.comparison, evaluations: [v.h.evaluation, v.b.evaluation], ...(v.look ? {passes: v.look, looks} : {}), episodes: v.b.total + v.h.total, ...(from !== undefined ? {from_shards: from} : {})}, ...(ho ? {holdout: {base: ho.b.success_rate, head: ho.h.success_rate, evaluations: [ho.h.evaluation, ho.b.evaluation]}} : {}), checks, verdict})
      }
    } catch (e) {
      // the base's scenarios sit in a temporary folder: an error names the file the user knows
      // (`<base>:scenarios/holdout.sealed was sealed with another key`, not /tmp/exp-gate-…)
      if (e instanceof ExpError && tmp) e.message = e.message.split(`${tmp}${path.sep}`).join('').replace(/exp-gate-scenarios-[^/\s]+\//g, `${mb.slice(0, 12)}:scenarios/`)
      throw e
    } finally {
      await rm(tmp, {recursive: true, force: true})
    }
  }
  // a contract whose held-out check was left out (no key for its sealed data) is judged on dev
  // alone: so says the result, as for a sealed skill split (a fork's pull request gets no key)
  const uncertified = contracts.filter(c => c.uncertified).map(c => c.contract)
  if (uncertified.length) notes.push(`contract ${uncertified.join(', ')}: its private data is sealed and no key is available (EXP_HOLDOUT_KEY): the held-out check was not made, validation only, this gate cannot certify a promotion`)
  return {base: mb, head, scope, skills, contracts, stale, passed: scope.ok && !stale.length && !mixed.length && skills.every(s => s.verdict === 'accept') && contracts.every(c => c.verdict === 'accept'), certified: certified && !uncertified.length, reasons, notes, ...(mixed.length ? {mixed} : {})}
}

type PairOptions = EvalRunOptions & {scenariosDir: string; workspace: Workspace; repeat: number; reuse: Reuse}

/** Base and head on validation: pass by pass under a sequential policy (the same stopping rule as `exp eval`), else at once. */
async function validationPair(store: RecordStore, policy: PromotionPolicy, o: PairOptions, sides: {base: string; head: string}, approvedBy?: string): Promise<{b: RunResult; h: RunResult; comparison: Comparison; look?: number}> {
  if (looksOf(policy) > 1) {
    const r = await runPaired(store, {baseline: {...o, split: 'validation', skill: sides.base, role: 'gate-base'}, candidate: {...o, split: 'validation', skill: sides.head, role: 'gate-head'}, looks: looksOf(policy), stop: s => afterPass(policy, {candidate: s.candidate, baseline: s.baseline, approvedBy}, {look: s.look, scenarios: s.scenarios})})
    return {b: r.baseline, h: r.candidate, comparison: r.comparison, look: r.look}
  }
  return holdoutPair(store, o, sides, 'validation')
}

/** Base then head at a fixed size, the head's evaluation carrying the comparison. */
async function holdoutPair(store: RecordStore, o: PairOptions, sides: {base: string; head: string}, split: 'validation' | 'holdout' = 'holdout'): Promise<{b: RunResult; h: RunResult; comparison: Comparison}> {
  const b = await runEvaluation(store, {...o, split, skill: sides.base, role: 'gate-base'})
  let comparison: Comparison | undefined
  const h = await runEvaluation(store, {...o, split, skill: sides.head, role: 'gate-head', decorate: (full, verified) => ({...full, comparison: (comparison = compareRuns(b.private_evaluation ?? b.evaluation, b.verified, verified))})})
  return {b, h, comparison: comparison!}
}


/**
 * What to do when a proposal branch's knowledge file is out of scope: `exp propose` commits
 * knowledge/<slug>.yaml beside the skill, and contracts written before `exp init` listed it
 * allow skills/** only.
 */
export function knowledgeScopeHint(outside: readonly string[]): string | undefined {
  if (!outside.some(p => /^knowledge\/[^/]+\.yaml$/.test(p))) return undefined
  return 'knowledge/<slug>.yaml is the accepted knowledge exp propose commits beside a skill: a contract written before exp init listed it allows skills/** only; add `knowledge/*.yaml` to `editable` in .research/contracts/skills.yaml on the base branch'
}

/** The Markdown a CI job shows (also appended to $GITHUB_STEP_SUMMARY). */
export function gateMarkdown(r: GateResult): string {
  const out = [`## exp gate: ${r.passed ? 'PASS' : 'FAIL'}${r.passed && !r.certified ? ' (validation only, not certified)' : ''}`, '', `base \`${r.base.slice(0, 12)}\`, head \`${r.head.slice(0, 12)}\`, ${r.scope.changed.length} file(s) changed.`, '']
  for (const n of r.notes) out.push(`> ${n}`, '')
  if (!r.scope.ok) {
    out.push('### Scope', '')
    for (const p of r.scope.outside) out.push(`- outside the editable scope: ${codeSpan(shownPath(p))}`)
    for (const p of r.scope.protected) out.push(`- protected: ${codeSpan(shownPath(p))}`)
    for (const p of r.scope.links) out.push(`- not a regular file (a symbolic link, a submodule, or .gitattributes/.gitmodules): ${codeSpan(shownPath(p))}`)
    const hint = knowledgeScopeHint(r.scope.outside)
    if (hint) out.push('', `Next step: ${hint}.`)
    out.push('')
  }
  if (r.stale?.length) {
    out.push('### Out of date', '', `The base changed protected files since this pull request branched (${r.stale.map(p => codeSpan(shownPath(p))).join(', ')}): merge or rebase it onto the base to be judged.`, '')
  }
  if (r.mixed?.length) {
    out.push('### One contract a pull request', '')
    for (const m of r.mixed) out.push(`- contract ${codeSpan(m.contract)}: its editable files changed with others (${m.others.slice(0, 8).map(p => codeSpan(shownPath(p))).join(', ')}${m.others.length > 8 ? `, +${m.others.length - 8} more` : ''})`)
    out.push('', 'A contract judges a pull request that changes its own editable files only. Next step: split this one into one pull request a contract (and one for skills).', '')
  }
  for (const s of r.skills) {
    out.push(`### ${s.skill}: ${s.verdict.toUpperCase()}`, '', '| split | base | head |', '| --- | --- | --- |', `| validation | ${pct(s.validation.base)} | ${pct(s.validation.head)} |`, `| holdout | ${s.holdout ? pct(s.holdout.base) : 'sealed'} | ${s.holdout ? pct(s.holdout.head) : 'sealed'} |`, '')
    const c = s.validation.comparison
    out.push(`wins ${c.wins}, losses ${c.losses}, ties ${c.ties}; two-sided McNemar p ${c.mcnemar_p.toFixed(3)}; regressions ${c.regressions.length}${s.validation.passes ? `; stopped after pass ${s.validation.passes} of ${s.validation.looks}` : ''}${s.validation.from_shards !== undefined ? `; ${s.validation.from_shards} of ${s.validation.episodes} validation episodes from the shard jobs` : ''}`, '')
    for (const k of s.checks) out.push(`- ${k.passed ? '✅' : '❌'} ${k.name}: ${k.detail}`)
    out.push('')
  }
  for (const c of r.contracts) {
    out.push(`### contract ${c.contract}: ${c.verdict.toUpperCase()}`, '', `dev: ${c.dev.outcome}, ${c.dev.reason}`, ...(c.holdout ? [`held-out: ${c.holdout.outcome}, ${c.holdout.reason}`] : []), '')
    for (const k of c.checks) out.push(`- ${k.passed ? '✅' : '❌'} ${k.name}: ${k.detail}`)
    out.push('')
  }
  if (r.shard) out.push(`Shard ${r.shard.shard.index}/${r.shard.shard.count}: ${r.shard.episodes} validation episode(s) of ${r.shard.skills.length} skill(s) in this slice, ${r.shard.recorded} run here; receipts on lane \`${r.shard.lane}\`. The job with \`--shards ${r.shard.shard.count}\` decides.`, '')
  else if (!r.skills.length && !r.contracts.length && r.scope.ok && !r.stale?.length && !r.mixed?.length) out.push(r.scope.changed.length ? `Nothing to evaluate: the files changed (${r.scope.changed.slice(0, 8).map(p => codeSpan(shownPath(p))).join(', ')}${r.scope.changed.length > 8 ? ` and ${r.scope.changed.length - 8} more` : ''}) are in the editable scope, but are no skill's (skills/<name>/…) and no contract's files, so nothing here judges them.` : 'Nothing to evaluate: no file changed.', '')
  return out.join('\n')
}
