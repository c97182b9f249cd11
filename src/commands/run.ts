import {GitWorkspace} from '../workspace/git.js'
import {Args, Flags} from '../vendor/oclif.js'
import {ExpCommand} from '../cli/base.js'
import {withStore} from '../cli/context.js'
import {runContext} from '../cli/run-context.js'
import {ProgressBar} from '../cli/progress.js'
import {table} from '../cli/table.js'
import {ExpError} from '../errors/index.js'
import {runEvaluation, type RunResult} from '../evals/runner/run.js'
import {parseShard, runShard, type ShardResult} from '../evals/runner/shard.js'
import {infrastructureFailures, invalidReasons} from '../evals/runner/attempts.js'
import {isSplit} from '../evals/runner/records.js'
import {formatProblem} from '../scenarios/index.js'
import {AGENT_SPECS, NOISE_SPECS} from '../agents/registry.js'
import {memoryModeFlag} from '../cli/memory.js'
import {DEFAULT_MEMORY_MODE, parseMemoryMode} from '../evals/runner/memory.js'
import {recallForRun} from '../loop/memory.js'
import {recallBudget} from '../cli/budgets.js'
import type {SkillText} from '../agents/types.js'
import {pct} from '../reports/format.js'
import {clipped} from '../errors/shown.js'

export default class Run extends ExpCommand {
  static summary = 'Run an agent on a split and record every episode as evidence.'
  static description = `Writes a manifest record (dataset tree, skill blob, world/grader version, agent, model, params, seed), then one trace and one grader verification per episode, then an evaluation summary (success rate with a Wilson interval, pass^k when --repeat > 1, per-scenario results, score vector).
Held-out traces go to the lane's private ref (never pushed); the public lane gets the manifest and the aggregate only.
Resumable: episode ids come from (manifest, scenario, repetition), so running the same command again after a kill records only the missing episodes, and retries the episodes that failed for infrastructure reasons.
Infrastructure failures (the agent program missing, its endpoint refusing or failing after retries, timeouts) are not the agent's failures: they are said on stderr, counted apart (INFRA), and when no episode could run at all the command exits non-zero without recording an evaluation.
Sharded: --shard I/N runs only the I-th of N slices of the episodes (chosen by episode id, the same on every machine), each shard on its own lane (--lane). The evaluation is recorded once every episode of the run is present — by the shard that finds the others' episodes here (one repository, or after \`exp sync\`), or by the unsharded command run afterwards, which then runs nothing: the same episodes, so the same evaluation as one unsharded run. \`exp eval\` and \`exp gate\` find these episodes too. When the policy on main requires signed evidence, a run reuses only its own lane's episodes and those a standing (signed) evaluation pins (docs/trust.md): shards on other lanes are then run again by the run that assembles them, so spread a signed evaluation with the gate's --shards instead.
Memory modes (--memory-mode, docs/compare.md): record_only (the default) records the episodes as experience the miner may read; off and recall_only keep them out of mining; recall_only and closed_loop hand the knowledge recalled for the skill to the agent as a second skill text. The manifest pins the mode and the recall, so a run with another recall is another experiment (shards of a recalling run must see the same knowledge).
Agents: ${AGENT_SPECS.join(', ')}; ${NOISE_SPECS.join(' or ')} adds seeded slips of probability P per tool call (docs/scripted-agent.md).`
  static enableJsonFlag = true
  static jsonOutput = '{manifest, evaluation, split, total, passed, invalid, success_rate, ci, skill, resumed, retried, recorded}; a shard job (--shard) gives {manifest, shard, lane, episodes, recorded, present, total, evaluation}.'
  static examples = ['<%= config.bin %> run train', '<%= config.bin %> run validation --repeat 3 --seed 7', '<%= config.bin %> run holdout --skill exp/proposal/pr-0123456789abcdef01234567', "<%= config.bin %> run train --agent 'command:python3 my_agent.py'", '<%= config.bin %> run train --agent openai:gpt-4o-mini', '<%= config.bin %> run validation --repeat 3 --shard 2/4 --lane shard-2', '<%= config.bin %> run validation --agent scripted:noise=0.1', '<%= config.bin %> run holdout --memory-mode closed_loop --json']
  static args = {split: Args.string({description: 'train, validation or holdout', required: true})}
  static flags = {
    agent: Flags.string({description: 'scripted | command:PROGRAM | openai:MODEL (default: .research/config.yaml agent, else scripted)'}),
    skill: Flags.string({description: 'skill folder or SKILL.md, or a git revision (REV or REV:PATH); default: the only skill under skills/'}),
    repeat: Flags.integer({description: 'episodes per scenario', min: 1}),
    concurrency: Flags.integer({description: 'episodes in flight at once', min: 1}),
    scenarios: Flags.string({description: 'folder of scenario files (default: scenarios/)'}),
    seed: Flags.integer({description: 'base seed (default: config seed, else 42)', min: 0}),
    lane: Flags.string({description: 'lane to record on (default: EXP_LANE, git config exp.lane, user@host)'}),
    'max-steps': Flags.integer({description: 'tool calls allowed per episode', min: 1}),
    strict: Flags.boolean({description: 'stop at the first malformed scenario instead of skipping it'}),
    'retry-invalid': Flags.boolean({description: 'when resuming, run again the episodes that were invalid for infrastructure reasons (agent program missing, connection refused, HTTP errors after retries, timeouts); --no-retry-invalid keeps them', default: true, allowNo: true}),
    events: Flags.string({description: 'append lifecycle events as JSON Lines to this file (default: EXP_EVENTS); secrets, home paths and held-out scenario ids are redacted'}),
    shard: Flags.string({description: 'run only slice I of N of the episodes (I/N, by episode id); the evaluation is recorded once all slices are present'}),
    ...memoryModeFlag(DEFAULT_MEMORY_MODE),
  }

  async run(): Promise<RunResult | ShardResult> {
    const {args, flags} = await this.parse(Run)
    if (!isSplit(args.split)) throw new ExpError('E_USAGE', `unknown split: ${clipped(args.split)}`, {hint: 'use train, validation or holdout'})
    const shard = flags.shard === undefined ? undefined : parseShard(flags.shard)
    const mode = parseMemoryMode(flags['memory-mode'])
    const ran = await withStore(this.workDir, async store => {
      const {options, config} = await runContext(store, this.workDir, flags, l => this.note(l))
      const bar = new ProgressBar(`run ${args.split}${shard ? ` (shard ${shard.index}/${shard.count})` : ''}`)
      const o = {
        ...options,
        split: args.split as 'train',
        skill: flags.skill,
        repeat: flags.repeat ?? config.run?.repeat ?? 1,
        repo: store.repo,
        workspace: new GitWorkspace(store),
        strict: flags.strict,
        retryInvalid: flags['retry-invalid'],
        memory: (skill: SkillText) => recallForRun(store, {mode, skill, lane: options.lane, budget: recallBudget(config)}),
        onProgress: (p: {done: number; total: number; passed: number; invalid: number}) => bar.update(p.done, p.total, `passed ${p.passed} invalid ${p.invalid}`),
      }
      try {
        return shard ? await runShard(store, {...o, shard}) : await runEvaluation(store, o)
      } finally {
        bar.done()
        await options.events?.close()
      }
    })
    if ('shard' in ran && !ran.evaluation) {
      if (!this.jsonEnabled()) {
        this.log(`shard ${ran.shard.index}/${ran.shard.count} on lane ${ran.lane}: ${ran.episodes} episode(s) of ${ran.total}, ${ran.recorded} run here, the rest reused`)
        this.log(`${ran.present} of ${ran.total} episode(s) of the run are present: the evaluation is recorded once all are (run the other shards, \`exp sync\`, then any shard again or \`exp run ${args.split}\` with the same options)`)
        this.log(`manifest ${ran.manifest}`)
      }
      return ran
    }
    const res = 'shard' in ran ? ran.evaluation! : ran
    for (const p of res.problems) process.stderr.write(`skipped ${formatProblem(p)}\n`)
    const infra = infrastructureFailures(res.verified)
    if (infra.count) {
      this.note(`warning: ${infra.count} of ${res.total} episode(s) could not run: infrastructure failures, not the agent's (counted apart, INFRA)`)
      for (const r of infra.reasons.slice(0, 3)) this.note(`  ${r.count}x ${r.reason}`)
      this.note('  fix it and run the same command again: those episodes are retried')
    } else if (res.total && res.invalid === res.total) {
      // (a crash is the agent's own doing, not retried; when every episode ends the same way,
      // the agent most likely never ran: a command that is not there, a script's path)
      const all = invalidReasons(res.verified)
      this.note(`warning: every episode (${res.total}) was invalid: the agent ended none of them with an answer`)
      for (const r of all.reasons.slice(0, 3)) this.note(`  ${r.count}x ${r.reason}`)
      this.note('  check the agent (--agent), e.g. run its command by hand; `exp inspect` of a trace id shows one episode whole')
    }
    if (!this.jsonEnabled()) {
      this.log(table([[res.split, res.total, res.passed, res.total - res.passed - res.invalid, res.invalid - infra.count, infra.count, pct(res.success_rate), `[${pct(res.ci[0])}, ${pct(res.ci[1])}]`]], ['SPLIT', 'EPISODES', 'PASSED', 'FAILED', 'INVALID', 'INFRA', 'SUCCESS', '95% CI']))
      if (res.body.pass_hat_k !== undefined) this.log(`pass^${res.body.repeat}: ${pct(res.body.pass_hat_k)}   pass@${res.body.repeat}: ${pct(res.body.pass_at_k ?? 0)}`)
      // (the agent's parameters too: scripted:noise=0.1 is another agent than scripted)
      const about = [...(res.agent.model ? [res.agent.model] : []), ...Object.entries(res.agent.params ?? {}).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)]
      this.log(`skill ${res.skill.name} (${res.skill.blob.slice(0, 12)}), agent ${res.agent.name}${about.length ? ` (${about.join(', ')})` : ''}`)
      this.log(`manifest ${res.manifest}  evaluation ${res.evaluation}${res.private_evaluation ? ` (held-out details: ${res.private_evaluation}, private)` : ''}`)
      if (res.resumed || res.retried) this.log(`resumed: ${res.resumed} episode(s) were already recorded, ${res.retried} retried after an infrastructure failure, ${res.recorded} new`)
    }
    if ('shard' in ran && !this.jsonEnabled()) this.log(`shard ${ran.shard.index}/${ran.shard.count} ran ${ran.recorded} episode(s); every shard's episodes are here: the evaluation of the whole run is recorded`)
    if (res.problems.length) throw new ExpError('E_SCHEMA', `${res.problems.length} scenario file problem(s): those scenarios were skipped`, {hint: 'run `exp scenarios lint` and fix them', data: {...res, problems: res.problems}})
    return ran
  }
}
