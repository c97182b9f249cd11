import {Args, Flags} from '../vendor/oclif.js'
import {ExpCommand} from '../cli/base.js'
import {withStore} from '../cli/context.js'
import {table} from '../cli/table.js'
import {attemptContext, attemptFlags, checkAttemptContract} from '../cli/attempts.js'
import {repositoryHidden} from '../cli/run-context.js'
import {research, type ResearchResult} from '../attempts/loop.js'
import {createResearchAgent, RESEARCH_AGENTS} from '../attempts/agents/registry.js'
import {PACKAGE_ROOT} from '../package-root.js'
import path from 'node:path'
import {memoryModeFlag} from '../cli/memory.js'
import {parseMemoryMode} from '../evals/runner/memory.js'

export default class Research extends ExpCommand {
  static summary = 'Run a research lane under a contract: the agent proposes edits, exp evaluates and decides.'
  static description = `For each of this lane's N attempts: resume a needs_retry attempt first; else ask the agent for the next move (it sees the public part of the contract, the editable files on main, every lane's public evidence and recalled knowledge; never the evaluator's data), record and claim its hypothesis, open the attempt (branch exp/attempt/<id>), apply the edits in its work tree, evaluate it on dev and apply the contract's promotion policy (held-out evaluation only for a dev improvement). Lanes run leaderless in parallel: two lanes never work on the same move. Killed and run again with the same options, the lane finishes the same attempts (the budget is spent once).
Memory modes (--memory-mode, docs/compare.md): closed_loop (the default) shows the agent every lane's evidence and knowledge; recall_only every other lane's only; record_only and off neither (the attempts are recorded all the same: they are the evaluation).
Agents: ${RESEARCH_AGENTS.join(', ')} (docs/research-protocol.md). search is built in and offline: a coarse-to-fine coordinate search over the numbers of the editable JSON and YAML files.`
  static enableJsonFlag = true
  static jsonOutput = '{contract, lane, agent, attempts (each attempt: id, hypothesis, evaluations, decision), promoted, rejected, resumed, stopped, main}.'
  static examples = ['<%= config.bin %> research tuning --agent search --attempts 20', "<%= config.bin %> research tuning --agent 'command:python3 my_researcher.py' --attempts 5 --lane b", '<%= config.bin %> research tuning --agent openai:gpt-4o-mini --attempts 3 --json', '<%= config.bin %> research tuning --agent search --attempts 5 --memory-mode off']
  static args = {contract: Args.string({description: 'contract name (.research/contracts/NAME.yaml)', required: true})}
  static flags = {
    ...attemptFlags,
    agent: Flags.string({description: `who proposes the edits: ${RESEARCH_AGENTS.join(' | ')}`, default: 'search'}),
    attempts: Flags.integer({description: 'attempts of this lane in all (a rerun completes them)', min: 1, default: 10}),
    ...memoryModeFlag('closed_loop'),
  }

  async run(): Promise<ResearchResult> {
    const {args, flags} = await this.parse(Research)
    const memoryMode = parseMemoryMode(flags['memory-mode'], 'closed_loop')
    const res = await withStore(this.workDir, async store => {
      const c = await attemptContext(store, this.workDir, flags, l => this.note(l))
      await checkAttemptContract(c.ws, c.mainRef, args.contract)
      const agent = createResearchAgent(flags.agent, {sandbox: {...(store.repo.workDir ? {root: store.repo.workDir} : {}), hide: [...repositoryHidden(store), path.join(PACKAGE_ROOT, 'scenarios'), path.join(PACKAGE_ROOT, 'examples')]}, openai: {cacheDir: path.join(store.commonDir, 'exp', 'llm-cache')}})
      try {
        return await research(store, c.ws, {contract: args.contract, agent, attempts: flags.attempts, memoryMode, lane: c.lane, mainRef: c.mainRef, worktreeRoot: c.worktreeRoot, hide: c.hide, redact: c.redact, seed: c.seed, claimTtlSeconds: c.claimTtlSeconds, ...(c.holdoutKey ? {holdoutKey: c.holdoutKey} : {}), onEvent: line => this.note(line)})
      } finally {
        await agent.close?.()
      }
    })
    if (!this.jsonEnabled()) {
      const rows = res.attempts.map(a => [`#${a.ordinal}`, a.id, a.state, a.dev ?? '-', a.holdout ?? '-'])
      if (rows.length) this.log(table(rows, ['#', 'ATTEMPT', 'STATE', 'DEV', 'HOLDOUT']))
      this.log(`${res.attempts.length} attempt(s): ${res.promoted} promoted, ${res.rejected} rejected, ${res.resumed} resumed${res.stopped ? `; stopped: ${res.stopped}` : ''}`)
    }
    return res
  }
}
