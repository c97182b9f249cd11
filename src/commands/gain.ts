import {Flags} from '../vendor/oclif.js'
import {outputPath, resultsFolder} from '../cli/out-path.js'
import {ExpCommand} from '../cli/base.js'
import {withStore} from '../cli/context.js'
import {exploreFlag, runFlags} from '../cli/run-context.js'
import {runExperiment} from '../cli/experiment.js'
import {GitWorkspace} from '../workspace/git.js'
import {gain, type GainResult} from '../loop/gain/run.js'
import {gainMarkdown} from '../loop/gain/render.js'
import {writeOutputFiles} from '../write-output.js'

const {lane: _lane, ...armFlags} = runFlags

export default class Gain extends ExpCommand {
  static summary = 'Measure Experience Gain: held-out score with the closed loop minus score without memory.'
  static description = `Experience Gain = score(closed_loop) - score(off), with the same agent, scenarios, seeds and budget (docs/compare.md). The closed_loop side runs the loop in a namespace of its own under --memory-mode closed_loop (its train runs mined, recalled knowledge in the agent's context, proposals promoted on its own main ref); the off side runs the same train runs (as many, the same seeds) with memory off and the skill unchanged. Both end on the same held-out episodes, so the gain comes with a paired bootstrap 95% interval and an exact McNemar p.
Supporting metrics per side: repeated-failure rate (failures after the first train run that repeat an earlier one: same scenario, same broken invariants), invalid rate, the share of recalled lessons cited by the proposals that used them, hypothesis redundancy (hypotheses testing the same rules as an earlier one).
Writes results/gain.json and results/gain.md, and a note \`exp report\` shows. Resumable like exp compare; with a sealed held-out split and no key it says it cannot certify and runs nothing (exit 7).`
  static enableJsonFlag = true
  static jsonOutput = 'the result written to results/gain.json: {gain (held-out closed loop minus off), ci, mcnemar_p, pairs, closed_loop and off (success, passed, total), note}.'
  static examples = ['<%= config.bin %> gain', '<%= config.bin %> gain --budget-episodes 600 --iterations 3 --json', "<%= config.bin %> gain --agent 'command:python3 my_agent.py'"]
  static flags = {
    // every arm records on its own lane: no --lane
    ...armFlags,
    'budget-episodes': Flags.integer({description: 'episodes each side may record before its held-out evaluation', min: 1, default: 1500}),
    repeat: Flags.integer({description: 'validation and held-out episodes per scenario', min: 1, default: 3}),
    iterations: Flags.integer({char: 'n', description: 'loop iterations of the closed-loop side at most', min: 1, default: 10}),
    'train-repeat': Flags.integer({description: 'train episodes per scenario', min: 1, default: 3}),
    'max-rules': Flags.integer({description: 'rules per proposal (default: the recall item budget, as exp evolve)', min: 1}),
    // the closed-loop side trains as exp evolve does; the off side never explores
    explore: exploreFlag,
    skill: Flags.string({description: 'the skill (folder under skills/)', default: 'onboarding'}),
    out: Flags.string({description: 'folder to write gain.{json,md} into (default: results/ at the top of the repository)'}),
  }

  async run(): Promise<GainResult> {
    const {flags} = await this.parse(Gain)
    // checked before the experiment runs: a path that cannot be written fails now, not after it
    const dir = outputPath(this.workDir, flags.out ?? resultsFolder(this.workDir, this.repoRoot()), '--out', 'folder', ['gain.json', 'gain.md'])
    const res = await withStore(this.workDir, async store => {
      return runExperiment(store, this.workDir, flags, l => this.note(l), o => gain(store, new GitWorkspace(store), {...o}))
    })
    await writeOutputFiles(dir, [['gain.json', `${JSON.stringify(res, null, 2)}\n`], ['gain.md', gainMarkdown(res)]])
    if (!this.jsonEnabled()) this.log(gainMarkdown(res))
    return res
  }
}
