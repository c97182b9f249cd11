import {Args, Flags} from '../vendor/oclif.js'
import {ExpCommand} from '../cli/base.js'
import {withStore} from '../cli/context.js'
import {runContext, runFlags} from '../cli/run-context.js'
import {createAgent} from '../agents/registry.js'
import {mainFlag, mainRefOf} from '../cli/main-ref.js'
import {ExpError} from '../errors/index.js'
import {isSplit} from '../evals/runner/records.js'
import type {Split} from '../records/types.js'
import {ablate, parseSkillAtVersion, type Ablation} from '../matrix/ablate.js'
import {renderAblation} from '../reports/credit.js'
import {GitWorkspace} from '../workspace/git.js'

export default class Ablate extends ExpCommand {
  static summary = 'Credit each rule of a skill: leave one rule (and one patch) out, on validation and held-out.'
  static description = `For SKILL at VERSION (default: the current version on main), every line the rule grammar reads is a rule unit, and the lines each promotion added that are still there form a patch unit. Each unit is removed in turn (a variant commit over the skill's commit) and the variant is run against the skill with the same scenarios and seeds on each split; a unit's credit is what removing it costs (skill − variant), with a paired bootstrap 95% interval over scenarios. Every run is an evaluation record whose manifest pins skill, agent, data and seed, and episode ids are content-derived: running the same command again reuses every episode. The credits are recorded as one note record; \`exp blame SKILL --credit\` and \`exp report\` show them.
A rule whose removal does not lower success on any split is a removal candidate; the lowest-credit one is offered as an ordinary proposal (branch exp/proposal/<id> removing the line) that \`exp eval\` and \`exp promote\` judge like any other (a not-worse change needs the policy's allow_neutral). Works with a sealed held-out split and its key (docs/trust.md). See docs/matrix.md.`
  static enableJsonFlag = true
  static jsonOutput = '{skill, version, commit, blob, path, agent, seed, repeat, splits, baseline, units (each rule left out, with its credit), candidates, note}.'
  static examples = [
    '<%= config.bin %> ablate onboarding',
    '<%= config.bin %> ablate onboarding@3 --splits validation --repeat 1 --json',
    '<%= config.bin %> ablate onboarding --agent scripted:literal --no-propose',
    '<%= config.bin %> ablate onboarding --main refs/exp/matrix/START/SOURCE/main   # a skill an exp matrix source evolved',
  ]
  static args = {skill: Args.string({description: 'SKILL or SKILL@VERSION (a skill under skills/ on main)', required: true})}
  static flags = {
    ...runFlags,
    ...mainFlag,
    splits: Flags.string({description: 'comma-separated splits to measure on', default: 'validation,holdout'}),
    repeat: Flags.integer({description: 'episodes per scenario for every run', min: 1, default: 3}),
    propose: Flags.boolean({description: 'offer the lowest-credit removal candidate as a proposal (--no-propose: only list it)', default: true, allowNo: true}),
  }

  async run(): Promise<Ablation> {
    const {args, flags} = await this.parse(Ablate)
    const spec = parseSkillAtVersion(args.skill)
    const splits = [...new Set(flags.splits.split(',').map(s => s.trim()).filter(Boolean))]
    for (const s of splits) if (!isSplit(s) || s === 'train') throw new ExpError('E_USAGE', `--splits: ${JSON.stringify(s)} is not validation or holdout`, {hint: 'e.g. --splits validation,holdout'})
    if (!splits.length) throw new ExpError('E_USAGE', '--splits names no split', {hint: 'e.g. --splits validation,holdout'})
    const res = await withStore(this.workDir, async store => {
      const {options, mainRef} = await runContext(store, this.workDir, flags, l => this.note(l))
      // a malformed or unknown agent fails here, before anything is written
      createAgent(options.agent, options.agentOptions)
      try {
        return await ablate(store, new GitWorkspace(store), {
          ...options,
          ...spec,
          mainRef: flags.main !== undefined ? await mainRefOf(store.repo, this.workDir, flags.main) : mainRef,
          splits: splits as Split[],
          repeat: flags.repeat,
          propose: flags.propose,
          onStep: s => process.stderr.isTTY && process.stderr.write(`\r${s}\x1b[K`),
        })
      } finally {
        if (process.stderr.isTTY) process.stderr.write('\r\x1b[K')
        await options.events?.close()
      }
    })
    if (!this.jsonEnabled()) this.log(renderAblation(res))
    return res
  }
}
