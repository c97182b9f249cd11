import path from 'node:path'
import {Flags} from '../vendor/oclif.js'
import {outputPath, resultsFolder} from '../cli/out-path.js'
import {ExpCommand} from '../cli/base.js'
import {withStore} from '../cli/context.js'
import {exploreFlag, runFlags} from '../cli/run-context.js'
import {runExperiment} from '../cli/experiment.js'
import {table} from '../cli/table.js'
import {GitWorkspace} from '../workspace/git.js'
import {compare, type CompareResult} from '../loop/compare/run.js'
import {ARMS, parseArms} from '../loop/compare/arms.js'
import {compareCsv, compareMarkdown} from '../loop/compare/render.js'
import {writeOutputFiles} from '../write-output.js'
import {pct} from '../reports/format.js'

const {lane: _lane, ...armFlags} = runFlags

export default class Compare extends ExpCommand {
  static summary = 'Compare baseline, trace2skill, memory and compiler under one budget, seed policy and agent, on held-out.'
  static description = `The four configurations of the research questions (docs/compare.md): baseline (no memory), trace2skill (patches drafted from raw failing traces, no miner), memory (mined knowledge recalled into the agent's context, the skill unchanged) and compiler (mined knowledge compiled into the skill by the loop, the agent never sees it). Each arm runs in its own namespace: its own lane cmp-<id>-<arm>, a view of the records that holds only that lane, its own main ref refs/exp/compare/<id>/<arm>/main and proposal branches under exp/proposal/cmp-<id>-<arm>/, and manifests that pin the namespace; nothing one arm learns reaches another.
Every arm ends with the same held-out evaluation (scenarios, seeds, repetitions); the report gives held-out success with a 95% Wilson interval and the episodes each arm used, exact McNemar and paired bootstrap tests between arms on the same episodes, and H1-H3 with the evidence (a verdict may be "not supported"). Writes results/compare.md, results/compare.json and results/compare.csv, and a note the chart of \`exp report\` is drawn from.
With a sealed held-out split the key is needed (EXP_HOLDOUT_KEY, EXP_HOLDOUT_KEY_FILE, .git/exp/holdout.key): without it the command says it cannot certify, runs nothing and exits 7.
Resumable: the compare is identified by its options and the main commit it starts from; run the same command again after a kill and it finishes, without recording anything twice.`
  static enableJsonFlag = true
  static jsonOutput = 'the comparison also written to results/compare.json: {holdout, arms (each arm\'s held-out success, 95% CI, passed, total, episodes, promoted), pairs (McNemar and bootstrap between arms), hypotheses (H1-H3: verdict and evidence), note}.'
  static examples = ['<%= config.bin %> compare', '<%= config.bin %> compare --arms baseline,compiler --budget-episodes 600 --json', '<%= config.bin %> compare --repeat 5 --agent scripted', "<%= config.bin %> compare --agent 'command:python3 my_agent.py' --iterations 5"]
  static flags = {
    // every arm records on its own lane: no --lane
    ...armFlags,
    arms: Flags.string({description: `arms to run, comma-separated: ${ARMS.join(', ')} (default: all four)`}),
    'budget-episodes': Flags.integer({description: 'episodes each arm may record before its held-out evaluation', min: 1, default: 1500}),
    repeat: Flags.integer({description: 'validation and held-out episodes per scenario', min: 1, default: 3}),
    iterations: Flags.integer({char: 'n', description: 'iterations of each learning arm at most', min: 1, default: 10}),
    'train-repeat': Flags.integer({description: 'train episodes per scenario', min: 1, default: 3}),
    'max-rules': Flags.integer({description: 'rules per proposal (trace2skill and compiler) (default: the recall item budget, as exp evolve)', min: 1}),
    // the arms that evolve train as exp evolve does; baseline and memory never explore
    explore: exploreFlag,
    skill: Flags.string({description: 'the skill (folder under skills/)', default: 'onboarding'}),
    out: Flags.string({description: 'folder to write compare.{md,json,csv} into (default: results/ at the top of the repository)'}),
  }

  async run(): Promise<CompareResult> {
    const {flags} = await this.parse(Compare)
    // checked before the experiment runs: a path that cannot be written fails now, not after it
    const dir = outputPath(this.workDir, flags.out ?? resultsFolder(this.workDir, this.repoRoot()), '--out', 'folder', ['compare.json', 'compare.csv', 'compare.md'])
    const arms = parseArms(flags.arms)
    const res = await withStore(this.workDir, async store => {
      return runExperiment(store, this.workDir, flags, l => this.note(l), o => compare(store, new GitWorkspace(store), {...o, arms}))
    })
    await writeOutputFiles(dir, [['compare.json', `${JSON.stringify(res, null, 2)}\n`], ['compare.csv', compareCsv(res)], ['compare.md', compareMarkdown(res)]])
    if (!this.jsonEnabled()) {
      this.log(table(res.arms.map(a => [a.arm, a.mode, pct(a.success), `[${pct(a.ci[0])}, ${pct(a.ci[1])}]`, `${a.passed}/${a.total}`, a.episodes, a.promoted ?? '-']), ['ARM', 'MODE', 'HELD-OUT', '95% CI', 'PASSED', 'EPISODES', 'PROMOTED']))
      for (const h of res.hypotheses) this.log(`${h.id} ${h.verdict}: ${h.evidence}`)
      this.log(`wrote ${['compare.md', 'compare.json', 'compare.csv'].map(f => path.relative(process.cwd(), path.join(dir, f)) || f).join(', ')}`)
    }
    return res
  }
}
