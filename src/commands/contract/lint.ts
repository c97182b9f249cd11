import {Args} from '../../vendor/oclif.js'
import {ExpCommand} from '../../cli/base.js'
import {discoverRepo} from '../../store/index.js'
import {exitFor} from '../../errors/index.js'
import {lintContracts, type ContractLintReport} from '../../contracts/lint.js'
import {formatProblem} from '../../scenarios/index.js'

export default class ContractLint extends ExpCommand {
  static summary = 'Check research contracts (.research/contracts/*.yaml): schema and rules, with file:line errors.'
  static description = `A contract (docs/contracts.md) says what an attempt may change, what it must not touch, the metric and its direction, the dev and held-out evaluations and how a candidate is promoted. Each problem prints as \`file:line: message\`. Without NAME, every contract is checked. Exits 1 when any problem is found (as \`exp skills lint\` and \`exp scenarios lint\` do).`
  static enableJsonFlag = true
  static jsonOutput = '{contracts: [{name, file, ok}], problems: [{file, line, column?, message}]}; exits 1 when problems is not empty.'
  static examples = ['<%= config.bin %> contract lint', '<%= config.bin %> contract lint tuning --json']
  static args = {name: Args.string({description: 'contract name (the file .research/contracts/NAME.yaml)', required: false})}

  async run(): Promise<ContractLintReport> {
    const {args} = await this.parse(ContractLint)
    const repo = discoverRepo(this.workDir)
    const report = await lintContracts(repo.workDir ?? this.workDir, args.name)
    if (!this.jsonEnabled()) {
      for (const p of report.problems) this.log(formatProblem(p))
      this.log(`${report.contracts.length} contract(s), ${report.problems.length} problem(s)`)
    }
    // as skills lint and scenarios lint do: the report (problems and all) with --json, and exit 1 when there is any
    if (report.problems.length) process.exitCode = exitFor('E_LINT')
    return report
  }
}
