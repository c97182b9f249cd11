import {Args} from '../vendor/oclif.js'
import {ExpCommand} from '../cli/base.js'
import {withStore} from '../cli/context.js'
import {authorityOf} from '../cli/trust.js'
import {mainFlag, mainRefOf} from '../cli/main-ref.js'
import type {Blame} from '../projections/blame.js'
import {readBlame, readContractBlame, renderBlameText, renderContractBlame} from '../reports/index.js'
import type {ContractBlame} from '../projections/contract-blame.js'
import {contractAt} from '../contracts/load.js'
import {GitWorkspace} from '../workspace/git.js'
import {Flags} from '../vendor/oclif.js'
import {UsageError} from '../errors/index.js'
import {SkippedNotes} from '../cli/skipped-notes.js'
import {creditsOf, latestAblation, renderCreditBlame, type AblationNote, type LineCredit} from '../reports/credit.js'
import {clipped} from '../errors/shown.js'

export default class BlameCmd extends ExpCommand {
  static summary = "Show who put each line of a skill's SKILL.md on main there: promotion, proposal, knowledge."
  static description = `git blame of main's skills/SKILL/SKILL.md, each line read through the commit of main's first-parent line that brought it: a line a promotion merge brought (Exp-Promotes) maps to that merge, its proposal, version and decision, and the knowledge of the patch edit that added that line; lines of the first commit show as initial, later direct edits of main as edit (whatever trailer their message carries). For a research contract, the same for an editable file, line by line to the attempt that was promoted.`
  static enableJsonFlag = true
  static jsonOutput = '{skill, path, main: {branch, commit, version}, lines: [{line, text, commit, origin, version, knowledge}]}; with --credit also credit: {note, agent, lines}; for a research contract {contract, path, main, lines}, each line with its attempt.'
  static examples = ['<%= config.bin %> blame onboarding', '<%= config.bin %> blame onboarding --json', '<%= config.bin %> blame tuning params.json   # a research contract: each line to its attempt', '<%= config.bin %> blame onboarding --credit   # each rule\'s credit from the latest `exp ablate`']
  static args = {
    skill: Args.string({description: 'skill name (folder under skills/), or a research contract', required: true}),
    file: Args.string({description: 'a research contract: the editable file to blame (default: its first editable file)', required: false}),
  }
  static flags = {...mainFlag, credit: Flags.boolean({description: 'add each rule line\'s credit from the latest `exp ablate` of this SKILL.md (docs/matrix.md)'})}

  async run(): Promise<Blame | ContractBlame | (Blame & {credit: {note?: string; agent?: string; lines: LineCredit[]}})> {
    const {args, flags} = await this.parse(BlameCmd)
    const skipped = new SkippedNotes()
    const res = await withStore(this.workDir, async store => {
      const ws = new GitWorkspace(store)
      const mainRef = await mainRefOf(store.repo, this.workDir, flags.main, l => this.note(l))
      const trust = await authorityOf(store, this.workDir, {main: flags.main})
      const tip = await ws.readRef(mainRef)
      if (tip && !(await ws.hasFile(tip, `skills/${args.skill}/SKILL.md`)) && (await ws.hasFile(tip, `.research/contracts/${args.skill}.yaml`))) {
        const contract = await contractAt(ws, tip, args.skill)
        return readContractBlame(store, ws, {mainRef, contract: args.skill, path: args.file ?? contract.editable_scope.find(g => !/[*?[]/.test(g)) ?? contract.editable_scope[0]!, trust})
      }
      // a skill has one file to blame: a FILE given for it is a mistake, not something to ignore
      if (args.file !== undefined) throw new UsageError(`exp blame ${clipped(args.skill)} ${clipped(args.file)}: FILE is for a research contract; a skill's blame is always of its SKILL.md`, `run \`exp blame ${clipped(args.skill)}\``)
      const b = await readBlame(store, ws, {mainRef, skill: args.skill, trust})
      if (!flags.credit) return b
      const blob = (await ws.pathId(b.main.commit, b.path))?.oid
      const text = blob ? (await ws.readFile(b.main.commit, b.path))?.toString('utf8') : undefined
      const line = (await ws.firstParents(b.main.commit)).map(c => c.oid)
      const note: AblationNote | undefined = blob && text !== undefined ? latestAblation(trust.ledger, {blob, text, counts: trust.admit, skipped: skipped.add}, line) : undefined
      return {...b, credit: {...(note ? {note: note.note, agent: note.agent} : {}), lines: note ? creditsOf(note, b.lines) : []}, note}
    })
    skipped.report(l => this.note(l))
    if ('contract' in res) {
      if (!this.jsonEnabled()) this.log(renderContractBlame(res))
      return res
    }
    if ('note' in res) {
      const {note, ...out} = res as Blame & {credit: {note?: string; agent?: string; lines: LineCredit[]}; note?: AblationNote}
      if (!this.jsonEnabled()) this.log(renderCreditBlame(out, note, renderBlameText(out)))
      return out
    }
    if (!this.jsonEnabled()) this.log(renderBlameText(res))
    return res
  }
}
