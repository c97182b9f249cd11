import {Args, Flags} from '../vendor/oclif.js'
import {ExpCommand} from '../cli/base.js'
import {withStore} from '../cli/context.js'
import {runContext} from '../cli/run-context.js'
import {ProgressBar} from '../cli/progress.js'
import {table} from '../cli/table.js'
import {ExpError} from '../errors/index.js'
import {runEvaluation, type RunResult} from '../evals/runner/run.js'
import {infrastructureFailures} from '../evals/runner/attempts.js'
import {isSplit} from '../evals/runner/records.js'
import {formatProblem} from '../scenarios/index.js'
import {AGENT_SPECS} from '../agents/registry.js'
import {memoryModeFlag} from '../cli/memory.js'
import {DEFAULT_MEMORY_MODE, parseMemoryMode} from '../evals/runner/memory.js'
import {recallForRun} from '../loop/memory.js'

export default class Run extends ExpCommand {
  static summary = 'Run an agent on a split and record every episode as evidence.'
  static description = `Writes a manifest record (dataset tree, skill blob, world/grader version, agent, model, params, seed), then one trace and one grader verification per episode, then an evaluation summary (success rate with a Wilson interval, pass^k when --repeat > 1, per-scenario results, score vector).
Held-out traces go to the lane's private ref (never pushed); the public lane gets the manifest and the aggregate only.
Resumable: episode ids come from (manifest, scenario, repetition), so running the same command again after a kill records only the missing episodes, and retries the episodes that failed for infrastructure reasons.
Infrastructure failures (the agent program missing, its endpoint refusing or failing after retries, timeouts) are not the agent's failures: they are said on stderr, counted apart (INFRA), and when no episode could run at all the command exits non-zero without recording an evaluation.
Memory modes (--memory-mode, docs/compare.md): record_only (the default) records the episodes as experience the miner may read; off and recall_only keep them out of mining; recall_only and closed_loop hand the knowledge recalled for the skill to the agent as a second skill text. The manifest pins the mode and the recall, so a run with another recall is another experiment.
Agents: ${AGENT_SPECS.join(', ')}.`
  static enableJsonFlag = true
  static examples = ['<%= config.bin %> run train', '<%= config.bin %> run validation --repeat 3 --seed 7', '<%= config.bin %> run holdout --skill exp/proposal/pr-0123456789abcdef01234567', "<%= config.bin %> run train --agent 'command:python3 my_agent.py'", '<%= config.bin %> run train --agent openai:gpt-4o-mini', '<%= config.bin %> run holdout --memory-mode closed_loop --json']
  static args = {split: Args.string({description: 'train, validation or holdout', required: true})}
  static flags = {
    agent: Flags.string({description: 'scripted | command:PROGRAM | openai:MODEL (default: .research/config.yaml agent, else scripted)'}),
    skill: Flags.string({description: 'skill folder or SKILL.md, or a git revision (REV or REV:PATH); default: the only skill under skills/'}),
    repeat: Flags.integer({description: 'episodes per scenario', min: 1}),
    concurrency: Flags.integer({description: 'episodes in flight at once', min: 1}),
    scenarios: Flags.string({description: 'folder of scenario files (default: scenarios/)'}),
    seed: Flags.integer({description: 'base seed (default: config seed, else 42)'}),
    lane: Flags.string({description: 'lane to record on (default: EXP_LANE, git config exp.lane, user@host)'}),
    'max-steps': Flags.integer({description: 'tool calls allowed per episode', min: 1}),
    strict: Flags.boolean({description: 'stop at the first malformed scenario instead of skipping it'}),
    'retry-invalid': Flags.boolean({description: 'when resuming, run again the episodes that were invalid for infrastructure reasons (agent program missing, connection refused, HTTP errors after retries, timeouts); --no-retry-invalid keeps them', default: true, allowNo: true}),
    events: Flags.string({description: 'append lifecycle events as JSON Lines to this file (default: EXP_EVENTS); secrets, home paths and held-out scenario ids are redacted'}),
    ...memoryModeFlag(DEFAULT_MEMORY_MODE),
  }

  async run(): Promise<RunResult> {
    const {args, flags} = await this.parse(Run)
    if (!isSplit(args.split)) throw new ExpError('E_USAGE', `unknown split: ${args.split}`, {hint: 'use train, validation or holdout'})
    const mode = parseMemoryMode(flags['memory-mode'])
    const res = await withStore(this.workDir, async store => {
      const {options, config} = await runContext(store, this.workDir, flags, l => this.note(l))
      const bar = new ProgressBar(`run ${args.split}`)
      try {
        return await runEvaluation(store, {
          ...options,
          split: args.split as 'train',
          skill: flags.skill,
          repeat: flags.repeat ?? config.run?.repeat ?? 1,
          repo: store.repo,
          strict: flags.strict,
          retryInvalid: flags['retry-invalid'],
          memory: skill => recallForRun(store, {mode, skill, lane: options.lane, budget: {items: config.recall?.items ?? 8, tokens: config.recall?.tokens ?? 1200}}),
          onProgress: p => bar.update(p.done, p.total, `passed ${p.passed} invalid ${p.invalid}`),
        })
      } finally {
        bar.done()
        await options.events?.close()
      }
    })
    for (const p of res.problems) process.stderr.write(`skipped ${formatProblem(p)}\n`)
    const infra = infrastructureFailures(res.verified)
    if (infra.count) {
      this.note(`warning: ${infra.count} of ${res.total} episode(s) could not run: infrastructure failures, not the agent's (counted apart, INFRA)`)
      for (const r of infra.reasons.slice(0, 3)) this.note(`  ${r.count}x ${r.reason}`)
      this.note('  fix it and run the same command again: those episodes are retried')
    }
    if (!this.jsonEnabled()) {
      const pct = (x: number) => `${(x * 100).toFixed(1)}%`
      this.log(table([[res.split, res.total, res.passed, res.total - res.passed - res.invalid, res.invalid - infra.count, infra.count, pct(res.success_rate), `[${pct(res.ci[0])}, ${pct(res.ci[1])}]`]], ['SPLIT', 'EPISODES', 'PASSED', 'FAILED', 'INVALID', 'INFRA', 'SUCCESS', '95% CI']))
      if (res.body.pass_hat_k !== undefined) this.log(`pass^${res.body.repeat}: ${pct(res.body.pass_hat_k)}   pass@${res.body.repeat}: ${pct(res.body.pass_at_k ?? 0)}`)
      this.log(`skill ${res.skill.name} (${res.skill.blob.slice(0, 12)}), agent ${res.agent.name}${res.agent.model ? ` (${res.agent.model})` : ''}`)
      this.log(`manifest ${res.manifest}  evaluation ${res.evaluation}${res.private_evaluation ? ` (held-out details: ${res.private_evaluation}, private)` : ''}`)
      if (res.resumed || res.retried) this.log(`resumed: ${res.resumed} episode(s) were already recorded, ${res.retried} retried after an infrastructure failure, ${res.recorded} new`)
    }
    if (res.problems.length) throw new ExpError('E_SCHEMA', `${res.problems.length} scenario file problem(s): those scenarios were skipped`, {hint: 'run `exp scenarios lint` and fix them', data: {...res, problems: res.problems}})
    return res
  }
}
