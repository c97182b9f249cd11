import path from 'node:path'
import {Flags} from '../vendor/oclif.js'
import {ExpCommand} from '../cli/base.js'
import {laneOf, withStore} from '../cli/context.js'
import {table} from '../cli/table.js'
import {splitRefused} from '../errors/index.js'
import {confidenceOf, cutWarning, mineFromLedgerAsync} from '../mining/index.js'
import {TOOL_SPECS} from '../world/catalog.js'
import {drafter, mineDrafter} from '../loop/llm.js'
import {agentOptions, scenariosDirOf} from '../cli/run-context.js'
import {replayedIn} from '../loop/mine-step.js'
import {refuseDrafts} from '../store/index.js'
import {loadConfig} from '../research/files.js'

export interface MineResult {
  evidence: string[]
  knowledge: string[]
  /** train traces left out for want of a valid verification */
  skipped: number
  /** traces left out that cite a mined manifest but are not of its run (another manifest or split in their body) */
  foreign?: number
  /** train traces left out because their valid verifications disagree */
  contradicted?: number
  /** verifications of mined traces ignored: replayed and graded again, the trace gets another verdict */
  forged?: number
  /** train traces left out: their manifest ran on other scenarios than the folder here */
  unreplayable?: number
  /** train traces left out: another trace fills their place (scenario, repetition) in the run, or the run plans no such place */
  surplus?: number
}

export default class Mine extends ExpCommand {
  static summary = 'Mine evidence and knowledge from the train traces of the ledger.'
  static description = `Reads train traces and their grader verifications only (never validation or held-out); a verdict is learned from only when replaying its trace in a fresh world of its scenario (from --scenarios) and grading it again gives the same, so no lane can teach the miner a verdict the grader never gave, and one trace per scenario and repetition a run planned is mined, the lane's own first. It finds failure modes, missing checks, recovery strategies, wrong assumptions and termination failures, and records them as evidence (citing the runs) and knowledge claims (citing the evidence). Deterministic: mining the same traces again adds nothing. A claim whose runs changed is recorded as a new claim that supersedes the old one. See docs/mining.md.`
  static enableJsonFlag = true
  static jsonOutput = '{evidence, knowledge, skipped, foreign?, contradicted?, forged?, unreplayable?, surplus?}: the evidence and knowledge records written by this run, the traces it left out for want of a valid verification, those citing a mined manifest that are not of its run, those whose verifications disagree, the verifications ignored because the grader does not give their verdict (replayed), the traces whose scenarios are not here to replay them, and those left out because another trace fills their place (scenario and repetition) in the run.'
  static examples = ['<%= config.bin %> mine', '<%= config.bin %> mine --manifest mf-0123456789abcdef01234567 --json', '<%= config.bin %> mine --scenarios bench/scenarios', '<%= config.bin %> mine --miner-drafts openai:gpt-4o-mini']
  static flags = {
    manifest: Flags.string({description: 'only the traces of this train manifest'}),
    split: Flags.string({description: 'the split to mine: only train is allowed', default: 'train'}),
    lane: Flags.string({description: 'lane to record on (default: EXP_LANE, git config exp.lane, user@host); its own traces fill a run\'s places first'}),
    scenarios: Flags.string({description: 'folder of the scenarios the runs read (default: config scenarios, else scenarios/): every verdict is replayed against them before it is learned from'}),
    'miner-drafts': Flags.string({description: 'openai:MODEL: a model words the claims; rules, runs, statistics and links stay the miner\'s; each exchange is recorded (redacted) in the claim'}),
  }

  async run(): Promise<MineResult> {
    const {flags} = await this.parse(Mine)
    if (flags.split !== 'train') throw splitRefused(flags.split)
    const {mined, dir, elsewhere, result} = await withStore(this.workDir, async store => {
      const root = store.repo.workDir ?? this.workDir
      const config = await loadConfig(root)
      const dir = scenariosDirOf(root, this.workDir, config, flags.scenarios)
      const lane = await laneOf(store, flags.lane)
      // (a turn for the event loop every few milliseconds: a SIGTERM or Ctrl-C stops it at once, nothing written)
      const mined = await mineFromLedgerAsync(await store.ledger(), {manifest: flags.manifest, lane, verdicts: await replayedIn([dir]), tools: TOOL_SPECS})
      for (const c of mined.cut) this.note(cutWarning(c))
      const words = flags['miner-drafts'] ? mineDrafter(drafter(flags['miner-drafts'], '--miner-drafts', agentOptions(config, store).openai)) : undefined
      const drafts = words && mined.knowledge.length ? await words(mined.knowledge) : mined.knowledge
      // what the store would refuse for a secret is refused before the first batch: a refused
      // claim left the evidence written behind an error that said nothing was
      refuseDrafts([...mined.evidence, ...drafts], `nothing was written, evidence nor claims${words ? '; a drafted claim holds it: mine again without --miner-drafts for the miner\'s own words' : ''}`)
      // evidence first: knowledge cites it
      const evidence = await store.appendBatch(mined.evidence, {lane})
      const knowledge = await store.appendBatch(drafts, {lane})
      const elsewhere = knowledge.filter(r => r.status === 'exists').length
      return {mined, dir, elsewhere, result: {evidence: evidence.map(r => r.id), knowledge: knowledge.map(r => r.id), skipped: mined.skipped, ...(mined.foreign ? {foreign: mined.foreign} : {}), ...(mined.contradicted ? {contradicted: mined.contradicted} : {}), ...(mined.forged ? {forged: mined.forged} : {}), ...(mined.unreplayable ? {unreplayable: mined.unreplayable} : {}), ...(mined.surplus ? {surplus: mined.surplus} : {})}}
    })
    if (!this.jsonEnabled()) {
      const rows = mined.evidence.map(e => [e.body.pattern, e.body.signature, e.body.support, e.body.failures, confidenceOf(e.body.support, e.body.unexplained?.length ?? e.body.failures).toFixed(3)])
      this.log(table(rows, ['PATTERN', 'SIGNATURE', 'SUPPORT', 'FAILURES', 'CONFIDENCE']) || '(nothing found)')
      this.log(`${mined.traces} train trace(s) mined, ${mined.skipped} skipped${mined.foreign ? `, ${mined.foreign} left out (they cite a mined manifest but are not of its run)` : ''}${mined.contradicted ? `, ${mined.contradicted} contradicted (verifications of the same trace that disagree)` : ''}${mined.unreplayable ? `, ${mined.unreplayable} not replayable here (their run read other scenarios than ${path.relative(this.workDir, dir) || '.'}: pass its folder with --scenarios)` : ''}${mined.surplus ? `, ${mined.surplus} surplus (another trace of the run's scenario and repetition was taken, or the run planned none)` : ''}${mined.forged ? `; ${mined.forged} verdict(s) ignored: replayed and graded again, the trace gets another` : ''}; ${result.evidence.length} evidence, ${result.knowledge.length - elsewhere} new knowledge record(s)${elsewhere ? ` (${elsewhere} more the same as another lane's, recorded there already)` : ''}`)
    }
    return result
  }
}
