import type {FactsByKind} from '../records/index.js'
import {claimState, ownClaim, traceClaims} from './claims.js'
import {isCandidate, isInvalid, judge, type Judgement} from './effect.js'
import type {AnyLinked, HypothesisNode, Linked, ResearchIndex} from './research.js'
import type {HypothesisStatus, HypothesisView, StatusStep, TransitionProblem, TransitionRule} from './types.js'

export interface Derivation {
  view: HypothesisView
  problems: TransitionProblem[]
  /** what the frontier needs to name the next action */
  gaps: {proposal: boolean; holdout?: Judgement}
}

type Base = Exclude<HypothesisStatus, 'running' | 'retired'>

/**
 * Derive a hypothesis' status by replaying the records about it in ledger order (the
 * table in docs/frontier.md). Evidence moves a base status; a retire note and a live
 * claim are overlays on it (retired > promoted > running > base), so a reopen reveals
 * whatever the evidence said meanwhile and a lapsed claim reveals the base again.
 * An illegal transition is reported and not applied.
 */
export function derive(ix: ResearchIndex, node: HypothesisNode, now: Date): Derivation {
  const self = node.self
  const problems: TransitionProblem[] = []
  const problem = (rule: TransitionRule, l: AnyLinked, message: string) => problems.push({rule, hypothesis: self.entry.id, record: l.entry.id, lane: l.entry.lane, ref: l.entry.ref, commit: l.entry.commit, message})
  let base = 'proposed' as Base
  let because = [self.entry.id]
  let retired: string | undefined
  let lastOutcome = -1
  let holdout: Judgement | undefined
  let evidence = 0
  let merge: {commit: string; branch: string} | undefined
  const openClaims = new Set<string>()
  const proposals: string[] = []
  const verdicts = new Map<string, string>()
  const tallies: Record<string, Map<number, FactsByKind['verdict']>> = {}
  const shown = (): HypothesisStatus => (retired ? 'retired' : base === 'promoted' ? 'promoted' : openClaims.size ? 'running' : base)
  const history: StatusStep[] = [{status: 'proposed', record: self.entry.id, lamport: self.entry.lamport, reason: 'hypothesis recorded'}]
  const setBase = (s: Base, why: string[]) => {
    if (base === 'promoted') return
    base = s
    because = why
  }
  for (const l of node.events) {
    if (l.pos < self.pos) problem('precedes_hypothesis', l, `${l.entry.kind} ${l.entry.id} precedes the hypothesis it is about in ledger order`)
    let reason = `${l.entry.kind} ${l.entry.id}`
    switch (l.entry.kind) {
      case 'proposal':
      case 'attempt':
        proposals.push(l.entry.id)
        setBase('active', [l.entry.id])
        break
      case 'verdict': {
        evidence++
        const f = (l as Linked<'verdict'>).facts
        if (!proposals.includes(f.attempt)) {
          problem('evaluation_without_proposal', l, `verdict ${l.entry.id} of ${self.entry.id} has no attempt recorded before it`)
          continue
        }
        lastOutcome = l.pos
        openClaims.clear()
        const tally = (tallies[`${f.attempt}\u0000${f.split}`] ??= new Map())
        tally.set(f.repetition, f)
        const j = judgeVerdicts([...tally.values()])
        if (f.split === 'holdout') holdout = j === 'needs_retry' ? 'invalid' : j
        reason = `${f.split} verdict ${l.entry.id} of attempt ${f.attempt}: ${j}`
        if (f.split === 'dev') {
          if (j === 'needs_retry') setBase('needs_retry', [l.entry.id, f.attempt])
          else if (j === 'supports') setBase('supported', [l.entry.id])
          else if (j === 'contradicts') setBase('contradicted', [l.entry.id])
        }
        break
      }
      case 'evaluation': {
        evidence++
        const ev = l as Linked<'evaluation'>
        if (ev.noProposal || ev.facts.proposal === undefined || !proposals.includes(ev.facts.proposal)) {
          problem('evaluation_without_proposal', l, `evaluation ${l.entry.id} of ${self.entry.id} has no proposal recorded before it`)
          continue
        }
        if (!isCandidate(ev.facts) || ev.facts.split === 'train') break
        lastOutcome = l.pos
        openClaims.clear()
        const j = judge(ix, node, ev)
        if (ev.facts.split === 'holdout') holdout = j
        reason = `${ev.facts.split} candidate evaluation ${l.entry.id}: ${j}`
        if (j === 'invalid') setBase('needs_retry', [l.entry.id, ev.facts.proposal])
        else if (j === 'supports') setBase('supported', [l.entry.id])
        else if (j === 'contradicts') setBase('contradicted', [l.entry.id])
        break
      }
      case 'decision': {
        evidence++
        lastOutcome = l.pos
        openClaims.clear()
        const f = (l as Linked<'decision'>).facts
        const earlier = verdicts.get(f.proposal)
        // (a standing accept outweighs a reject recorded before it: trust/authority.ts problems)
        if (earlier === 'accept' && f.verdict === 'reject') {
          problem('conflicting_decisions', l, `decision ${l.entry.id} rejects proposal ${f.proposal}, which an earlier decision accepted`)
          continue
        }
        verdicts.set(f.proposal, f.verdict)
        const evs = f.evaluations.map(id => ix.evaluations.get(id)?.facts).filter((x): x is FactsByKind['evaluation'] => !!x && isCandidate(x))
        const own = f.evaluations.map(id => ix.verdicts.get(id)?.facts).filter((x): x is FactsByKind['verdict'] => !!x && x.attempt === f.proposal)
        if (ix.attempts.has(f.proposal)) {
          if (f.verdict === 'reject') {
            const dev = own.filter(x => x.split === 'dev')
            if (dev.length && judgeVerdicts(dev) === 'needs_retry') setBase('needs_retry', [l.entry.id, f.proposal])
            else setBase('contradicted', [l.entry.id])
          } else if (retired) problem('accept_while_retired', l, `decision ${l.entry.id} accepts attempt ${f.proposal} of retired hypothesis ${self.entry.id}`)
          else if (!own.some(x => x.split === 'holdout' && x.valid)) problem('promoted_without_holdout', l, `decision ${l.entry.id} accepts attempt ${f.proposal} without a valid held-out verdict among its evidence`)
          else if (!own.some(x => x.split === 'dev' && x.valid)) problem('promoted_without_dev_evidence', l, `decision ${l.entry.id} accepts attempt ${f.proposal} without a valid dev verdict among its evidence`)
          else {
            setBase('promoted', [l.entry.id])
            merge = f.merge
          }
          break
        }
        if (f.verdict === 'reject') {
          // a rejection resting only on crashed or timed-out runs says nothing about the idea
          if (evs.length && evs.every(isInvalid)) setBase('needs_retry', [l.entry.id, f.proposal])
          else setBase('contradicted', [l.entry.id])
          break
        }
        const holdoutEval = f.evaluations.find(id => {
          const x = ix.evaluations.get(id)?.facts
          return x && isCandidate(x) && x.split === 'holdout' && !isInvalid(x)
        })
        if (retired) problem('accept_while_retired', l, `decision ${l.entry.id} accepts proposal ${f.proposal} of retired hypothesis ${self.entry.id}`)
        else if (!holdoutEval) problem('promoted_without_holdout', l, `decision ${l.entry.id} accepts proposal ${f.proposal} without a valid held-out candidate evaluation among its evaluations`)
        else if (!evs.some(x => x.split === 'validation' && !isInvalid(x))) problem('promoted_without_dev_evidence', l, `decision ${l.entry.id} accepts proposal ${f.proposal} without a valid validation candidate evaluation among its evaluations`)
        else {
          setBase('promoted', [l.entry.id, holdoutEval])
          merge = f.merge
        }
        break
      }
      case 'claim':
        // (a claim or release for another lane is not taken: traceClaims, below, names it)
        if (!ownClaim(l)) break
        if (retired) problem('claim_while_retired', l, `claim ${l.entry.id} by ${(l as Linked<'claim'>).facts.holder} of retired hypothesis ${self.entry.id}`)
        else openClaims.add((l as Linked<'claim'>).facts.holder)
        break
      case 'release':
        if (ownClaim(l)) openClaims.delete((l as Linked<'release'>).facts.holder)
        break
      case 'note': {
        const action = (l as Linked<'note'>).facts.action
        if (action === 'retire') retired = l.entry.id
        else if (!retired) problem('reopen_not_retired', l, `note ${l.entry.id} reopens ${self.entry.id}, which is not retired`)
        else retired = undefined
        reason = `${action} note ${l.entry.id}`
        break
      }
    }
    const s = shown()
    if (s !== history[history.length - 1]!.status) history.push({status: s, record: l.entry.id, lamport: l.entry.lamport, reason})
  }
  const trace = traceClaims(node.events, now)
  for (const r of trace.refused) problem(r.rule, r.record, r.message)
  for (const r of trace.orphanReleases) problem('release_without_claim', r, `release ${r.entry.id} by ${r.facts.holder}, who held no claim${r.facts.claim ? ` ${r.facts.claim}` : ''} of ${self.entry.id}`)
  const claims = claimState(trace, now)
  const running = !retired && base !== 'promoted' && claims.holder !== undefined && claims.lastClaimPos! > lastOutcome
  const status: HypothesisStatus = retired ? 'retired' : base === 'promoted' ? 'promoted' : running ? 'running' : base
  const last = history[history.length - 1]!
  if (status !== last.status) history.push({status, reason: running ? `claim ${claims.holder!.claim} is live` : `claim lapsed at ${now.toISOString()} or was released`})
  const h = claims.holder
  const view: HypothesisView = {
    id: self.entry.id,
    lane: self.entry.lane,
    lamport: self.entry.lamport,
    status,
    evidence_status: retired ? 'retired' : base,
    because: retired ? [retired] : running ? [h!.claim] : because,
    evidence,
    proposals,
    ...(h ? {claim: {holder: h.holder, claim: h.claim, since: h.since, expires_at: h.expires_at}} : {}),
    contenders: claims.waiting.map(w => w.holder),
    ...(merge ? {merge} : {}),
    history,
  }
  return {view, problems, gaps: {proposal: proposals.length > 0, ...(holdout ? {holdout} : {})}}
}

/**
 * What the verdicts of one attempt on one split say, the latest per repetition: a
 * resumable run left without a number first (needs_retry), else the majority of outcomes.
 */
function judgeVerdicts(vs: readonly FactsByKind['verdict'][]): Judgement | 'needs_retry' {
  if (vs.some(v => !v.valid && v.resume !== undefined && v.resume !== 'abandon')) return 'needs_retry'
  const valid = vs.filter(v => v.valid)
  if (!valid.length) return 'invalid'
  const pos = valid.filter(v => v.outcome === 'positive').length
  const neg = valid.filter(v => v.outcome === 'negative').length
  return pos > neg ? 'supports' : neg > pos ? 'contradicts' : 'inconclusive'
}
