import {GitWorkspace} from '../workspace/git.js'
import {gitScratch} from '../research/scratch.js'
import {Flags} from '../vendor/oclif.js'
import {readWorkFile} from '../work-file.js'
import path from 'node:path'
import {ExpCommand} from '../cli/base.js'
import {withStore} from '../cli/context.js'
import {runContext, runFlags} from '../cli/run-context.js'
import {table} from '../cli/table.js'
import {InvalidInputError, NotFoundError, isExpError} from '../errors/index.js'
import {auditGate, type AuditResult} from '../loop/audit.js'
import {pct} from '../reports/format.js'


export default class AuditGate extends ExpCommand {
  static summary = 'Audit the promotion gate: how often does it promote a change that does nothing?'
  static description = `Sends N null candidates — a no-op, a rewording, a rule moved where it changes nothing, in turn — through the whole promotion path (proposal branch, paired validation under the policy's sequential design, the policy, held-out, merge or reject) under the agent's noise, each trial with seeds of its own, in a scratch copy of the main branch: nothing is written to this repository. Every promotion of a null candidate is a false one; their share is the gate's false-promotion rate, reported with its 95% Wilson interval, with the check that decided each trial.
Noise: --noise P (default 0.1) wraps the agent in seeded slips of probability P per tool call (\`noise:P:SPEC\`, docs/scripted-agent.md), so repeated episodes differ as with a sampled LLM; --noise 0 audits the agent as it is (the scripted agent then never promotes a null candidate: nothing differs).
Also reported, over the real promotions recorded in this repository: the validation gain against the held-out gain, and the mean gap between them (what choosing on validation overstates).
--policy FILE audits another policy file (it is committed in the scratch copy only); the default audits .research/policy.yaml on the main branch.`
  static enableJsonFlag = true
  static jsonOutput = '{trials, agent, policy, promoted, false_promotion_rate, interval (95% Wilson), by_kind, decided_by, episodes, promotions, details (one object per trial)}.'
  static examples = ['<%= config.bin %> audit-gate --trials 30', '<%= config.bin %> audit-gate --trials 200 --json', '<%= config.bin %> audit-gate --trials 100 --policy stricter-policy.yaml --noise 0.05']
  static flags = {
    ...runFlags,
    trials: Flags.integer({description: 'null candidates to send through the gate', min: 1, max: 100_000, default: 50}),
    policy: Flags.string({description: 'a policy file to audit instead of .research/policy.yaml on the main branch'}),
    noise: Flags.string({description: 'slip probability per tool call wrapped around the agent (0 to 1)', default: '0.1'}),
    skill: Flags.string({description: 'the skill whose null candidates are sent', default: 'onboarding'}),
    'eval-repeat': Flags.integer({description: 'held-out episodes per scenario of a promotion', min: 1, default: 3}),
    keep: Flags.boolean({description: 'keep the scratch repository and print where it is'}),
  }

  async run(): Promise<AuditResult> {
    const {flags} = await this.parse(AuditGate)
    const noise = Number(flags.noise)
    if (!/^\s*\d*\.?\d+\s*$/.test(flags.noise) || !(noise >= 0 && noise <= 1)) throw new InvalidInputError(`--noise ${flags.noise} is not a probability`, {flag: 'noise'}, 'give a number from 0 to 1, e.g. --noise 0.1')
    const policy = flags.policy
      ? {
          text: (
            await readWorkFile(path.resolve(this.workDir, flags.policy)).catch(e => {
              throw isExpError(e) ? e : new NotFoundError('policy file', flags.policy!, 'pass the path of a .research/policy.yaml-like file')
            })
          ).toString('utf8'),
          file: flags.policy,
        }
      : undefined
    const json = this.jsonEnabled()
    const res = await withStore(this.workDir, async store => {
      const {options, config, mainRef} = await runContext(store, this.workDir, flags, l => this.note(l))
      const agent = noise > 0 ? `noise:${noise}:${flags.agent ?? config.agent ?? 'scripted'}` : options.agent
      try {
        return await auditGate(store, new GitWorkspace(store), {
          ...options,
          agent,
          trials: flags.trials,
          skill: flags.skill,
          mainRef,
          evalRepeat: flags['eval-repeat'],
          keep: flags.keep,
          scratch: o => gitScratch(store.repo, o),
          ...(policy ? {policy} : {}),
          onTrial: t => {
            if (process.stderr.isTTY) process.stderr.write(`\rtrial ${t.trial + 1}/${flags.trials}: ${t.kind}, ${t.verdict}\x1b[K`)
          },
        })
      } finally {
        if (process.stderr.isTTY) process.stderr.write('\r\x1b[K')
        await options.events?.close()
      }
    })
    if (!json) {
      this.log(`audit of ${res.policy.source} (version ${res.policy.version}) with ${res.agent}: ${res.trials} null candidate(s)`)
      this.log(`false promotions: ${res.promoted} of ${res.trials} = ${pct(res.false_promotion_rate)} (95% Wilson interval ${pct(res.interval.low)} to ${pct(res.interval.high)})`)
      this.log(table(Object.entries(res.by_kind).map(([k, v]) => [k, v.trials, v.promoted]), ['NULL CANDIDATE', 'TRIALS', 'PROMOTED']))
      this.log(table(Object.entries(res.decided_by).sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, v]), ['DECIDED BY', 'TRIALS']))
      this.log(`episodes: ${res.episodes.total} (${res.episodes.per_trial} per trial, ${res.episodes.validation_pairs_per_trial} validation pairs per trial)`)
      const p = res.promotions
      if (p.count) this.log(`real promotions in this repository: ${p.count}; validation gain ${pct(p.mean_validation_gain!)} vs held-out gain ${pct(p.mean_holdout_gain!)} on average, a gap of ${pct(p.mean_gap!)}`)
      else this.log('real promotions in this repository: none yet (run `exp evolve`), so no validation/held-out gap to report')
      if (res.scratch) this.log(`scratch repository kept: ${res.scratch}`)
    }
    return res
  }
}
