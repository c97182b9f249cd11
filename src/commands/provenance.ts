import {Args, Flags} from '../vendor/oclif.js'
import {ExpCommand} from '../cli/base.js'
import {withStore} from '../cli/context.js'
import {authorityOf} from '../cli/trust.js'
import {mainFlag, mainRefOf} from '../cli/main-ref.js'
import {parseSkillSpec, type Provenance} from '../projections/provenance.js'
import {readContractProvenance, readProvenance, renderContractProvenance, renderMermaid, renderProvenanceText} from '../reports/index.js'
import type {ContractProvenance} from '../projections/contract-provenance.js'
import {GitWorkspace} from '../workspace/git.js'

export default class ProvenanceCmd extends ExpCommand {
  static summary = 'Show how each version of a skill came to be, back to the failing traces.'
  static description = `Versions come from main's first-parent history: 1 where the skill first appears, +1 at each promotion merge (Exp-Promotes). For each: the merge commit, the decision and its policy, the evaluations by split, the proposal and its edits, the hypothesis, the recall, the knowledge, the evidence and the failing train traces it was mined from. Records this clone lacks, or keeps on a private lane, are named as missing.
--format mermaid prints a flowchart (paste it into a Markdown file); --json the typed result.`
  static enableJsonFlag = true
  static jsonOutput = '{skill, main, versions: [{skill, version, origin (the promotion: merge, decision, proposal, hypothesis, knowledge, evidence), commit, skill_blob, failures (the traces behind it), missing}]}.'
  static examples = ['<%= config.bin %> provenance onboarding', '<%= config.bin %> provenance onboarding@2 --json', '<%= config.bin %> provenance onboarding --format mermaid > provenance.mmd', '<%= config.bin %> provenance tuning   # a research contract: each promoted attempt']
  static args = {skill: Args.string({description: 'SKILL or SKILL@VERSION, or the name of a research contract', required: true})}
  static flags = {...mainFlag, format: Flags.string({description: 'text view', options: ['text', 'mermaid'], default: 'text'})}

  async run(): Promise<Provenance | ContractProvenance> {
    const {args, flags} = await this.parse(ProvenanceCmd)
    const spec = parseSkillSpec(args.skill)
    const res = await withStore(this.workDir, async store => {
      const mainRef = await mainRefOf(store.repo, this.workDir, flags.main, l => this.note(l))
      const trust = await authorityOf(store, this.workDir, {main: flags.main})
      // a research contract's name: the versions of its editable files (docs/contracts.md)
      const tip = await new GitWorkspace(store).readRef(mainRef)
      if (tip && spec.version === undefined && !(await new GitWorkspace(store).hasFile(tip, `skills/${spec.skill}/SKILL.md`)) && (await new GitWorkspace(store).hasFile(tip, `.research/contracts/${spec.skill}.yaml`))) return readContractProvenance(store, new GitWorkspace(store), {mainRef, contract: spec.skill, trust})
      return readProvenance(store, new GitWorkspace(store), {mainRef, ...spec, trust})
    })
    if (!this.jsonEnabled()) this.log('contract' in res ? renderContractProvenance(res) : flags.format === 'mermaid' ? renderMermaid(res) : renderProvenanceText(res))
    return res
  }
}
