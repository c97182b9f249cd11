import {GitWorkspace} from '../workspace/git.js'
import {Args, Flags} from '../vendor/oclif.js'
import {ExpCommand} from '../cli/base.js'
import {laneOf, withStore} from '../cli/context.js'
import {loadConfig} from '../research/files.js'
import {mainRefOf} from '../cli/main-ref.js'
import {createProposal, type CreatedProposal} from '../loop/proposal.js'
import {renderRule} from '../knowledge/index.js'
import {drafter, proposalDrafter} from '../loop/llm.js'
import {agentOptions} from '../cli/run-context.js'
import {proposeBudget} from '../cli/budgets.js'

export default class Propose extends ExpCommand {
  static summary = 'Propose a patch of a skill from recalled knowledge, as a branch exp/proposal/<id>.'
  static description = `Builds a recall record (knowledge scoped to the skill, ranked with a score breakdown, within an item and token budget), turns the top knowledge the skill does not yet follow into procedure lines, records the hypothesis it tests, and writes an ordinary branch exp/proposal/<id> with one commit changing SKILL.md, PURPOSE.yaml and the knowledge files it relies on, plus a proposal record citing the recall and the knowledge. A patch equal to a rejected one is never proposed again unless new evidence is cited. The executing agent never sees knowledge or recall: only the skill.`
  static enableJsonFlag = true
  static jsonOutput = '{proposal, hypothesis, recall, branch, head, base, version, patch: {patch (the edits), rendered (text, diff, size), rules, knowledge, reason}}, or {proposal: null, reason} when there is nothing to propose.'
  static examples = ['<%= config.bin %> propose onboarding', '<%= config.bin %> propose onboarding --max-rules 1 --json', 'p=$(<%= config.bin %> propose onboarding -q) && <%= config.bin %> eval "$p" && <%= config.bin %> promote "$p"', '<%= config.bin %> propose onboarding --proposer openai:gpt-4o-mini']
  static args = {skill: Args.string({description: 'skill name (folder under skills/)', required: true})}
  static flags = {
    lane: Flags.string({description: 'lane to record on'}),
    'max-rules': Flags.integer({description: 'rules in the first candidate patch, a rule and its conditioned case counting as one (smaller ones are tried when it was rejected)', min: 1, default: 3}),
    items: Flags.integer({description: 'knowledge items the proposer may draw on (default: propose.items of .research/config.yaml, else 16)', min: 1}),
    tokens: Flags.integer({description: 'tokens of knowledge text the proposer may draw on (default: propose.tokens, else 3000)', min: 1}),
    proposer: Flags.string({description: 'openai:MODEL: a model drafts the lines and reasons; which knowledge, rules and section stay deterministic; the exchanges are recorded (redacted) in a note citing the proposal'}),
    quiet: Flags.boolean({char: 'q', description: 'print only the proposal id (nothing when there is nothing to propose), for scripts'}),
  }

  async run(): Promise<CreatedProposal | {proposal: null; reason: string}> {
    const {args, flags} = await this.parse(Propose)
    const res = await withStore(this.workDir, async store => {
      const cfg = await loadConfig(store.repo.workDir ?? this.workDir)
      return createProposal(store, new GitWorkspace(store), await store.ledger(), {
        skill: args.skill,
        lane: await laneOf(store, flags.lane),
        mainRef: await mainRefOf(store.repo, this.workDir, undefined, l => this.note(l)),
        maxRules: flags['max-rules'],
        recall: {items: flags.items ?? proposeBudget(cfg).items, tokens: flags.tokens ?? proposeBudget(cfg).tokens},
        ...(flags.proposer ? {draft: proposalDrafter(drafter(flags.proposer, '--proposer', agentOptions(cfg, store).openai))} : {}),
      })
    })
    if (!res) {
      if (!this.jsonEnabled() && !flags.quiet) this.log('nothing to propose: no recalled knowledge with a rule the skill does not follow yet (or every such patch was rejected without new evidence); run `exp mine` after new train runs')
      return {proposal: null, reason: 'nothing new to propose'}
    }
    if (flags.quiet && !this.jsonEnabled()) this.log(res.proposal)
    else if (!this.jsonEnabled()) {
      this.log(`proposal ${res.proposal} on branch ${res.branch} (${res.head.slice(0, 12)})`)
      this.log(`hypothesis ${res.hypothesis}, recall ${res.recall}`)
      for (const r of res.patch.rules) this.log(`  + ${renderRule(r)}`)
      this.log(res.patch.rendered.diff)
      this.log(`next: exp eval ${res.proposal}`)
    }
    return res
  }
}
