import {Flags} from '../vendor/oclif.js'
import {ExpCommand} from '../cli/base.js'
import {laneOf, withStore} from '../cli/context.js'
import {table} from '../cli/table.js'
import {splitRefused} from '../errors/index.js'
import {confidenceOf, cutWarning, mineFromLedgerAsync} from '../mining/index.js'
import {TOOL_SPECS} from '../world/catalog.js'
import {drafter, mineDrafter} from '../loop/llm.js'
import {agentOptions} from '../cli/run-context.js'
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
}

export default class Mine extends ExpCommand {
  static summary = 'Mine evidence and knowledge from the train traces of the ledger.'
  static description = `Reads train traces and their grader verifications only (never validation or held-out), finds failure modes, missing checks, recovery strategies, wrong assumptions and termination failures, and records them as evidence (citing the runs) and knowledge claims (citing the evidence). Deterministic: mining the same traces again adds nothing. A claim whose runs changed is recorded as a new claim that supersedes the old one. See docs/mining.md.`
  static enableJsonFlag = true
  static jsonOutput = '{evidence, knowledge, skipped, foreign?, contradicted?}: the evidence and knowledge records written by this run, the traces it left out for want of a valid verification, those citing a mined manifest that are not of its run, and those whose verifications disagree.'
  static examples = ['<%= config.bin %> mine', '<%= config.bin %> mine --manifest mf-0123456789abcdef01234567 --json', '<%= config.bin %> mine --miner-drafts openai:gpt-4o-mini']
  static flags = {
    manifest: Flags.string({description: 'only the traces of this train manifest'}),
    split: Flags.string({description: 'the split to mine: only train is allowed', default: 'train'}),
    lane: Flags.string({description: 'lane to record on (default: EXP_LANE, git config exp.lane, user@host)'}),
    'miner-drafts': Flags.string({description: 'openai:MODEL: a model words the claims; rules, runs, statistics and links stay the miner\'s; each exchange is recorded (redacted) in the claim'}),
  }

  async run(): Promise<MineResult> {
    const {flags} = await this.parse(Mine)
    if (flags.split !== 'train') throw splitRefused(flags.split)
    const {mined, result} = await withStore(this.workDir, async store => {
      // (a turn for the event loop every few milliseconds: a SIGTERM or Ctrl-C stops it at once, nothing written)
      const mined = await mineFromLedgerAsync(await store.ledger(), {manifest: flags.manifest, tools: TOOL_SPECS})
      for (const c of mined.cut) this.note(cutWarning(c))
      const lane = await laneOf(store, flags.lane)
      const words = flags['miner-drafts'] ? mineDrafter(drafter(flags['miner-drafts'], '--miner-drafts', agentOptions(await loadConfig(store.repo.workDir ?? this.workDir), store).openai)) : undefined
      const drafts = words && mined.knowledge.length ? await words(mined.knowledge) : mined.knowledge
      // what the store would refuse for a secret is refused before the first batch: a refused
      // claim left the evidence written behind an error that said nothing was
      refuseDrafts([...mined.evidence, ...drafts], `nothing was written, evidence nor claims${words ? '; a drafted claim holds it: mine again without --miner-drafts for the miner\'s own words' : ''}`)
      // evidence first: knowledge cites it
      const evidence = await store.appendBatch(mined.evidence, {lane})
      const knowledge = await store.appendBatch(drafts, {lane})
      return {mined, result: {evidence: evidence.map(r => r.id), knowledge: knowledge.map(r => r.id), skipped: mined.skipped, ...(mined.foreign ? {foreign: mined.foreign} : {}), ...(mined.contradicted ? {contradicted: mined.contradicted} : {})}}
    })
    if (!this.jsonEnabled()) {
      const rows = mined.evidence.map(e => [e.body.pattern, e.body.signature, e.body.support, e.body.failures, confidenceOf(e.body.support, e.body.unexplained?.length ?? e.body.failures).toFixed(3)])
      this.log(table(rows, ['PATTERN', 'SIGNATURE', 'SUPPORT', 'FAILURES', 'CONFIDENCE']) || '(nothing found)')
      this.log(`${mined.traces} train trace(s) mined, ${mined.skipped} skipped${mined.foreign ? `, ${mined.foreign} left out (they cite a mined manifest but are not of its run)` : ''}${mined.contradicted ? `, ${mined.contradicted} contradicted (verifications of the same trace that disagree)` : ''}; ${result.evidence.length} evidence, ${result.knowledge.length} new knowledge record(s)`)
    }
    return result
  }
}
