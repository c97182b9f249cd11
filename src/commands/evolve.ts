import {GitWorkspace} from '../workspace/git.js'
import {Flags} from '../vendor/oclif.js'
import {ExpCommand} from '../cli/base.js'
import {withStore} from '../cli/context.js'
import {agentOptions, exploreFlag, runContext, runFlags} from '../cli/run-context.js'
import {evolve, type EvolveResult} from '../loop/evolve.js'
import {deterministicMine, mineStep} from '../loop/mine-step.js'
import {drafter, mineDrafter, proposalDrafter} from '../loop/llm.js'
import {renderDashboard} from '../loop/dashboard.js'
import {ExpError} from '../errors/index.js'
import {DEFAULT_TTL_SECONDS, MAX_TTL_SECONDS} from '../lifecycle/index.js'
import {memoryModeFlag} from '../cli/memory.js'
import {claimTtl, proposeBudget, recallBudget} from '../cli/budgets.js'
import {DEFAULT_MEMORY_MODE, parseMemoryMode} from '../evals/runner/memory.js'
import {checkExploreRate} from '../evals/runner/explore.js'
import {pct} from '../reports/format.js'

export default class Evolve extends ExpCommand {
  static summary = 'Run the loop: train, mine, propose, evaluate, promote — N iterations.'
  static description = `Each iteration runs the current main skill on train, mines the new traces, proposes a patch from recalled knowledge, evaluates it against the current skill on validation and applies the promotion policy (held-out only after validation passes). A dashboard is printed per iteration (skill version, training success, observed patterns, lines changed, validation before/after, regressions, decision).
Lanes: several \`exp evolve --lane NAME\` may run at once, on one repository or on clones that \`exp sync\`. Each claims the hypothesis behind its candidate, leaves the knowledge of other lanes' claims alone, and retires (and rebases) a candidate when another lane promoted first.
A run is identified by its options: kill it at any point and run the same command again, and it finishes that run (from the last iteration it finished, on the main that iteration left) with the same decisions, SKILL.md and held-out result as a run nobody killed; nothing is duplicated. Started again once finished, it says so: --continue starts a new run from the current main.
Fewer episodes per decision: validation follows the policy's sequential design (pass by pass, stopped at the first pass where the policy decides; docs/loop.md); the base's episodes are reused by every candidate of the same base and by the skill a promotion merged; the first candidate takes every rule the proposer is offered (--max-rules, propose.items of .research/config.yaml), and a rejected set is followed by its halves; the loop trains every new SKILL.md once, and a second time with fresh seeds only when its knowledge offers no candidate. --json reports the episodes of each iteration (train, validation, held-out) and, for each held-out level, the episodes spent until main reached it.
Exploration (--explore, default 0.3; docs/loop.md): each training run reads the skill without some of its rule lines (chosen by a seeded hash, named in its trace), so a rule learned too early shows against other answers and can be replaced by a later one; validation and held-out always read the skill whole.
Memory modes (--memory-mode, docs/compare.md): record_only (the default) mines the train runs and keeps knowledge away from the executing agent; closed_loop also hands the recalled knowledge to the agent on every run; recall_only recalls without mining this run's episodes; off neither mines nor recalls (the skill can then only change from knowledge already recorded). A run's mode is part of its identity.
It stops early, and says why, when no candidate is left, or when validation is at 100% (the promoted skill passed every validation episode, or a candidate was rejected against such a base).`
  static enableJsonFlag = true
  static jsonOutput = '{lane, iterations (one object per iteration: what its dashboard shows), holdout_before, holdout_after, promoted, rejected, episodes, reached (episodes until each held-out level), episodes_per_iteration, stopped, run (its id, generation, and whether it resumed or had finished)}.'
  static examples = ['<%= config.bin %> evolve --iterations 10', '<%= config.bin %> evolve --iterations 10 --continue', '<%= config.bin %> evolve -n 5 --budget-episodes 1500 --json', '<%= config.bin %> evolve -n 3 --memory-mode closed_loop', '<%= config.bin %> evolve -n 10 --agent scripted:noise=0.1', '<%= config.bin %> evolve -n 10 --explore 0', '<%= config.bin %> evolve --lane a --events a.jsonl & <%= config.bin %> evolve --lane b --events b.jsonl', 'OPENAI_BASE_URL=http://127.0.0.1:11434/v1 <%= config.bin %> evolve -n 3 --proposer openai:llama3.1:8b --miner-drafts openai:llama3.1:8b']
  static flags = {
    ...runFlags,
    ...memoryModeFlag(DEFAULT_MEMORY_MODE),
    iterations: Flags.integer({
      char: 'n',
      description: 'iterations to run',
      min: 1,
      default: 10,
    }),
    'budget-episodes': Flags.integer({
      description: 'stop before an iteration once this many new episodes were recorded',
      min: 1,
    }),
    skill: Flags.string({
      description: 'the skill to evolve (folder under skills/)',
      default: 'onboarding',
    }),
    'train-repeat': Flags.integer({
      description: 'train episodes per scenario',
      min: 1,
      default: 3,
    }),
    'eval-repeat': Flags.integer({
      description: 'validation and held-out episodes per scenario',
      min: 1,
      default: 3,
    }),
    'max-rules': Flags.integer({
      description: 'rules per proposal, first candidate (a rule and its conditioned case count as one; default: every rule the proposer is offered, propose.items of .research/config.yaml, else 16)',
      min: 1,
    }),
    explore: exploreFlag,
    proposer: Flags.string({
      description: 'openai:MODEL: a model drafts the words of each proposal (lines, reasons); which knowledge, rules and section stay deterministic; prompts and responses are recorded, redacted',
    }),
    'miner-drafts': Flags.string({
      description: 'openai:MODEL: a model words the claims the miner states; rules, runs, statistics and links stay the miner\'s; exchanges recorded, redacted',
    }),
    continue: Flags.boolean({
      description: 'when the run with these options has finished, start a new one from the current main',
    }),
    'claim-ttl': Flags.integer({
      description: `seconds a claim of this lane holds without renewal (default: claims.ttl_seconds of .research/config.yaml, else ${DEFAULT_TTL_SECONDS})`,
      min: 1,
      max: MAX_TTL_SECONDS,
    }),
  }

  async run(): Promise<EvolveResult> {
    const {flags} = await this.parse(Evolve)
    const json = this.jsonEnabled()
    const memoryMode = parseMemoryMode(flags['memory-mode'])
    const exploreRate = checkExploreRate(flags.explore)
    const res = await withStore(this.workDir, async store => {
      const {options, config, mainRef} = await runContext(store, this.workDir, flags, l => this.note(l))
      if (!store.repo.workDir && !config) throw new ExpError('E_USAGE', 'no configuration found')
      try {
        return await evolve(store, new GitWorkspace(store), {
          ...options,
          skill: flags.skill,
          mainRef,
          iterations: flags.iterations,
          budgetEpisodes: flags['budget-episodes'],
          trainRepeat: flags['train-repeat'],
          exploreRate,
          evalRepeat: flags['eval-repeat'],
          // one candidate with every rule the proposer is offered: a large effect is shown by the
          // gate's test in fewer episodes than several small ones, each too small to show (docs/loop.md)
          maxRules: flags['max-rules'] ?? proposeBudget(config).items,
          recall: recallBudget(config),
          propose: proposeBudget(config),
          mine: flags['miner-drafts'] ? mineStep({draft: mineDrafter(drafter(flags['miner-drafts'], '--miner-drafts', agentOptions(config, store).openai))}) : deterministicMine,
          ...(flags.proposer ? {draft: proposalDrafter(drafter(flags.proposer, '--proposer', agentOptions(config, store).openai))} : {}),
          claimTtlSeconds: flags['claim-ttl'] ?? claimTtl(config),
          memoryMode,
          continue: flags.continue,
          onStep: step => process.stderr.isTTY && process.stderr.write(`\r${step}\x1b[K`),
          onIteration: r => {
            if (process.stderr.isTTY) process.stderr.write('\r\x1b[K')
            if (json) return
            if (r.replayed) this.log(`Iteration ${r.iteration}: done by an earlier start of this run (${r.decision ? `${r.decision.verdict.toUpperCase()}, decision ${r.decision.id}` : `no decision: ${r.note ?? 'no candidate'}`})`)
            else this.log(`${renderDashboard(r)}\n`)
          },
        })
      } finally {
        await options.events?.close()
      }
    })
    if (process.stderr.isTTY) process.stderr.write('\r\x1b[K')
    if (!json) {
      if (res.run.finished_before) this.log(`evolve run ${res.run.id}/${res.run.generation} has finished already (${res.iterations.length} of ${flags.iterations} iteration(s)${res.stopped ? `, stopped: ${res.stopped}` : ''}); \`exp evolve --continue\` with the same options starts a new run from the current main`)
      else if (res.run.resumed) this.log(`evolve run ${res.run.id}/${res.run.generation}: resumed after ${res.run.resumed} finished iteration(s)`)
      this.log(
        `held-out: ${pct(res.holdout_before)} -> ${pct(res.holdout_after)}   promoted ${res.promoted}, rejected ${res.rejected}, ${res.episodes} new episodes${res.run.resumed ? ` in this run (${res.episodes_per_iteration.reduce((a, b) => a + b, 0)} since it resumed)` : ''}${res.reached_85 ? `; 85% held-out reached after ${res.reached_85.episodes} episodes` : ''}`,
      )
      if (res.stopped) this.log(`stopped: ${res.stopped}`)
    }
    return res
  }
}
