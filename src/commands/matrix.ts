import path from 'node:path'
import {Flags} from '../vendor/oclif.js'
import {outputPath, resultsFolder} from '../cli/out-path.js'
import {ExpCommand} from '../cli/base.js'
import {withStore} from '../cli/context.js'
import {runContext, runFlags} from '../cli/run-context.js'
import {createAgent, SCRIPTED_PROFILES} from '../agents/registry.js'
import {ExpError} from '../errors/index.js'
import {deterministicMine} from '../loop/mine-step.js'
import {claimTtl} from '../cli/budgets.js'
import {runMatrix, type MatrixResult} from '../matrix/matrix.js'
import {matrixCsv, matrixMarkdown, rulesCsv} from '../matrix/render.js'
import {GitWorkspace} from '../workspace/git.js'
import {writeOutputFiles} from '../write-output.js'

/** `*`: the built-in scripted profiles (docs/scripted-agent.md). */
const BUILT_IN = SCRIPTED_PROFILES.map(p => `scripted:${p}`)

function specs(values: readonly string[] | undefined, flag: string): string[] {
  const out: string[] = []
  for (const v of values?.length ? values : ['*']) {
    const s = v.trim()
    if (!s) throw new ExpError('E_USAGE', `${flag} is empty`, {hint: `give an agent spec (scripted:careless, openai:MODEL, command:PROGRAM) or '*'`})
    for (const x of s === '*' ? BUILT_IN : [s]) if (!out.includes(x)) out.push(x)
  }
  return out
}

export default class Matrix extends ExpCommand {
  static summary = 'The cross-model experiment: evolve a skill with each source agent, run every evolved skill with every executor on held-out, class every rule.'
  static description = `Does a skill learned with one model help another (docs/matrix.md)? For each --skill-source (an agent spec), \`exp evolve\` runs in that source's own namespace — lane matrix-<source>, main refs/exp/matrix/<source>/main (started at main's tip), proposal branches exp/proposal/matrix/<source>/<id>, and only its own knowledge — so sources never see each other's knowledge and nothing touches main. Then every evolved skill, and main's initial skill for reference, is run by every --executor on held-out, and every rule of every evolved skill is left out and reworded in turn for every executor on validation: a deterministic classifier (docs/matrix.md) puts each rule in one of five classes — environment knowledge, general procedure, tool-specific procedure, model compensation, prompt-format hack — citing the measured effects, and H4 is stated with its evidence.
Writes DIR/transfer-matrix.csv (one row per cell: success, Wilson 95% interval, the evaluation and manifest it comes from), DIR/transfer-matrix.md (the table, the evolution per source, the rule classes, H4) and DIR/transfer-rules.csv. Everything is a record: run the same command again and it reuses every evolve run and every episode. '*' (the default) stands for the built-in scripted profiles ${BUILT_IN.join(', ')}. Works with a sealed held-out split and its key (docs/trust.md).`
  static enableJsonFlag = true
  static jsonOutput = '{skill, start, executors, sources, initial, cells (held-out success of each evolved skill with each executor), recorded, files (written under --out)}.'
  static examples = [
    "<%= config.bin %> matrix --skill-source '*' --executor '*'",
    '<%= config.bin %> matrix -n 3 --holdout-repeat 1 --json',
    "<%= config.bin %> matrix --skill-source scripted:careless --skill-source openai:gpt-4o-mini --executor '*' --executor openai:gpt-4o-mini",
  ]
  static flags = {
    scenarios: runFlags.scenarios,
    seed: runFlags.seed,
    concurrency: runFlags.concurrency,
    'max-steps': runFlags['max-steps'],
    'skill-source': Flags.string({description: "agent spec whose experience evolves a skill (repeatable; '*': the built-in scripted profiles)", multiple: true}),
    executor: Flags.string({description: "agent spec that runs every evolved skill (repeatable; '*': the built-in scripted profiles)", multiple: true}),
    skill: Flags.string({description: 'the skill to evolve (folder under skills/)', default: 'onboarding'}),
    iterations: Flags.integer({char: 'n', description: 'evolve iterations per source', min: 1, default: 6}),
    'train-repeat': Flags.integer({description: 'train episodes per scenario while evolving', min: 1, default: 3}),
    'eval-repeat': Flags.integer({description: 'validation and held-out episodes per scenario while evolving', min: 1, default: 3}),
    'max-rules': Flags.integer({description: 'rules per first proposal while evolving (default: as exp evolve, the recall budget)', min: 1}),
    'holdout-repeat': Flags.integer({description: 'held-out episodes per scenario in each matrix cell', min: 1, default: 3}),
    'evidence-repeat': Flags.integer({description: "validation episodes per scenario for each rule's evidence (left out, reworded) per executor", min: 1, default: 1}),
    out: Flags.string({description: 'folder to write the CSV and Markdown into (default: results/ at the top of the repository)'}),
  }

  async run(): Promise<MatrixResult & {files: string[]}> {
    const {flags} = await this.parse(Matrix)
    // checked before the experiment runs: a path that cannot be written fails now, not after it
    const dir = outputPath(this.workDir, flags.out ?? resultsFolder(this.workDir, this.repoRoot()), '--out', 'folder', ['transfer-matrix.csv', 'transfer-matrix.md', 'transfer-rules.csv'])
    const sources = specs(flags['skill-source'], '--skill-source')
    const executors = specs(flags.executor, '--executor')
    const res = await withStore(this.workDir, async store => {
      const {options, config, mainRef} = await runContext(store, this.workDir, flags, l => this.note(l))
      // every spec is checked before anything is written
      for (const s of [...sources, ...executors]) createAgent(s, options.agentOptions)
      return runMatrix(store, new GitWorkspace(store), {
        ...options,
        sources,
        executors,
        skill: flags.skill,
        mainRef,
        iterations: flags.iterations,
        trainRepeat: flags['train-repeat'],
        evalRepeat: flags['eval-repeat'],
        maxRules: flags['max-rules'] ?? config.recall?.items ?? 8,
        holdoutRepeat: flags['holdout-repeat'],
        evidenceRepeat: flags['evidence-repeat'],
        recall: {items: config.recall?.items ?? 8, tokens: config.recall?.tokens ?? 1200},
        mine: deterministicMine,
        claimTtlSeconds: claimTtl(config),
        events: undefined,
        onStep: s => process.stderr.isTTY && process.stderr.write(`\r${s}\x1b[K`),
      })
    })
    if (process.stderr.isTTY) process.stderr.write('\r\x1b[K')
    const written = await writeOutputFiles(dir, [
      ['transfer-matrix.csv', matrixCsv(res)],
      ['transfer-matrix.md', matrixMarkdown(res)],
      ['transfer-rules.csv', rulesCsv(res)],
    ])
    if (!this.jsonEnabled()) {
      this.log(matrixMarkdown(res).split('\n## Evolution')[0]!.trim())
      this.log(`\n${res.h4.statement} ${res.h4.verdict.toUpperCase()}`)
      for (const e of res.h4.evidence) this.log(`  - ${e}`)
      this.log('')
      for (const f of written) this.log(path.relative(process.cwd(), f) || f)
    }
    return {...res, files: written}
  }
}
