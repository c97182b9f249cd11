import {Flags} from '../vendor/oclif.js'
import {appendFile} from 'node:fs/promises'
import {ExpCommand} from '../cli/base.js'
import {withStore} from '../cli/context.js'
import {runContext, runFlags} from '../cli/run-context.js'
import {ExpError} from '../errors/index.js'
import {gate, gateMarkdown, type GateResult} from '../gate/gate.js'

export default class Gate extends ExpCommand {
  static summary = 'The pull-request gate: scope check, then head against base on validation and held-out.'
  static description = `What CI runs on a pull request. Fails when the diff touches anything outside the contract's editable scope (default skills/**) or a protected path (scenarios/, .research/, graders). Otherwise every changed skill is evaluated, head against base, on validation and held-out, the records go to the \`ci\` lane (held-out details to its private ref), a Markdown summary is printed (and appended to $GITHUB_STEP_SUMMARY when set), and the command exits non-zero when the promotion policy fails. Contract and policy are read from the base.`
  static enableJsonFlag = true
  static examples = ['<%= config.bin %> gate --base origin/main --head HEAD', 'GITHUB_BASE_REF=main <%= config.bin %> gate']
  static flags = {
    ...runFlags,
    base: Flags.string({description: 'base revision (default: origin/$GITHUB_BASE_REF in CI, else the main branch)'}),
    head: Flags.string({description: 'head revision', default: 'HEAD'}),
    repeat: Flags.integer({description: 'episodes per scenario', min: 1, default: 2}),
    lane: Flags.string({description: 'lane for the gate records', default: 'ci'}),
  }

  async run(): Promise<GateResult> {
    const {flags} = await this.parse(Gate)
    const res = await withStore(this.workDir, async store => {
      const {options, mainRef} = await runContext(store, this.workDir, flags, l => this.note(l))
      const base = flags.base ?? (process.env.GITHUB_BASE_REF ? `origin/${process.env.GITHUB_BASE_REF}` : mainRef)
      return gate(store, {...options, base, head: flags.head, repeat: flags.repeat})
    })
    const md = gateMarkdown(res)
    if (!this.jsonEnabled()) this.log(md)
    if (process.env.GITHUB_STEP_SUMMARY) await appendFile(process.env.GITHUB_STEP_SUMMARY, `${md}\n`)
    if (!res.passed) throw new ExpError('E_POLICY', `gate failed: ${res.reasons.join('; ')}`, {hint: res.scope.ok ? 'the candidate does not satisfy .research/policy.yaml' : 'a pull request may only change the editable scope of .research/contract.yaml', data: {...res}})
    return res
  }
}
