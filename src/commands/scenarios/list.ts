import {Flags} from '../../vendor/oclif.js'
import {ExpCommand} from '../../cli/base.js'
import {scenariosFolder} from '../../cli/folders.js'
import {formatProblem, listScenarios, type ScenarioListing} from '../../scenarios/index.js'
import {holdoutKeyFor} from '../../cli/run-context.js'
import {unsealedWarning} from '../../scenarios/holdout.js'

export default class ScenariosList extends ExpCommand {
  static summary = 'List scenarios, grouped by split and workflow tag.'
  static description = 'A scenario appears under each of its tags. Files that do not load are reported on stderr (run `exp scenarios lint` for details).'
  static enableJsonFlag = true
  static jsonOutput = '{groups (scenario ids by split, then by workflow tag), scenarios: [{id, split, workflows, description}], problems (files that do not load), sealed (the held-out file: files, opened)}.'
  static examples = ['<%= config.bin %> scenarios list', '<%= config.bin %> scenarios list --split holdout --tag shortage', '<%= config.bin %> scenarios list --json']

  static flags = {
    split: Flags.string({description: 'only this split', options: ['train', 'validation', 'holdout']}),
    tag: Flags.string({description: 'only scenarios with this workflow tag'}),
    dir: Flags.string({description: "folder of scenario YAML files (default: the repository's scenarios/, from any subfolder)"}),
  }

  async run(): Promise<ScenarioListing> {
    const {flags} = await this.parse(ScenariosList)
    const listing = await listScenarios(await scenariosFolder(flags.dir, {cwd: this.workDir, root: this.repoRoot('scenarios')}), {split: flags.split as 'train' | 'validation' | 'holdout' | undefined, tag: flags.tag}, await holdoutKeyFor(this.workDir))
    for (const p of listing.problems) this.note(`warning: ${formatProblem(p)}`)
    for (const u of listing.unsealed ?? []) this.note(unsealedWarning(u))
    if (listing.sealed && !listing.sealed.opened) this.note(`holdout: ${listing.sealed.files} scenario(s) sealed in holdout.sealed (no key: set EXP_HOLDOUT_KEY to list them)`)
    if (!this.jsonEnabled()) this.log(render(listing))
    return listing
  }
}

function render(l: ScenarioListing): string {
  const lines: string[] = []
  for (const [split, tags] of Object.entries(l.groups)) {
    const n = l.scenarios.filter(s => s.split === split).length
    lines.push(`${split} (${n})`)
    for (const [tag, ids] of Object.entries(tags).sort(([a], [b]) => (a < b ? -1 : 1))) lines.push(`  ${tag} (${ids.length}): ${ids.join(', ')}`)
  }
  return lines.join('\n') || '(no scenarios)'
}
