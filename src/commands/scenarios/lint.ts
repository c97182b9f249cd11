import {Args} from '../../vendor/oclif.js'
import {ExpCommand} from '../../cli/base.js'
import {scenariosFolder} from '../../cli/folders.js'
import {formatProblem, lintScenarios, type LintReport} from '../../scenarios/index.js'
import {holdoutKeyFor} from '../../cli/run-context.js'
import {exitFor, NotFoundError} from '../../errors/index.js'
import {shownFrom} from '../../paths.js'
import {unsealedWarning} from '../../scenarios/holdout.js'

export default class ScenariosLint extends ExpCommand {
  static summary = 'Check scenario files: schema, references, and that each gold trajectory passes the grader.'
  static description = 'Every problem is printed as `file:line: message` (`file:line:column:` when the column is known), then how many. Exits 1 when any file has a problem (as `exp skills lint` and `exp contract lint` do), 3 when the folder holds no scenario files. A warning names each plain file that holds held-out tasks unsealed: one that looks held-out (`split: holdout`, or an id or name starting with hold-) and does not parse (`exp seal` refuses it), or a valid one beside holdout.sealed (runs ignore it; `exp seal` adds it). See docs/scenarios.md for the format.'
  static enableJsonFlag = true
  static jsonOutput = '{dir, files, scenarios, problems: [{file, line, column?, message}], sealed, unsealed (plain files holding held-out tasks in the clear: [{file, kind: broken | beside-sealed, problems}])}; exits 1 when problems is not empty.'
  static examples = ['<%= config.bin %> scenarios lint', '<%= config.bin %> scenarios lint path/to/scenarios --json']

  static args = {
    dir: Args.string({description: "folder of scenario YAML files (default: the repository's scenarios/, from any subfolder)"}),
  }

  async run(): Promise<LintReport> {
    const {args} = await this.parse(ScenariosLint)
    const dir = await scenariosFolder(args.dir, {cwd: this.workDir, root: this.repoRoot('scenarios')})
    const report = await lintScenarios(dir, await holdoutKeyFor(this.workDir))
    // like a linter given a folder with nothing to lint: "no problems" would pass a CI step that checked nothing
    if (report.files === 0 && !report.sealed?.files) throw new NotFoundError('scenario files', `${shown(dir)} holds no *.yaml scenario files`, 'name the folder that holds them (`exp scenarios lint path/to/scenarios`), or add one: docs/scenarios.md')
    if (report.sealed && !report.sealed.opened) this.note(`holdout: ${report.sealed.files} sealed scenario(s) not linted (no key: set EXP_HOLDOUT_KEY)`)
    // held-out tasks in plain files that sealing would miss or has not done: said, whatever else is wrong
    for (const u of report.unsealed ?? []) this.note(unsealedWarning(u))
    // paths relative to where the user stands, so file:line is clickable
    report.problems = report.problems.map(p => ({...p, file: shown(p.file)}))
    // as skills lint and contract lint do: the problems and a summary on stdout, the report
    // (problems and all) with --json, and exit 1 when there is any
    for (const p of report.problems) this.log(formatProblem(p))
    if (report.problems.length) {
      this.log(`${report.problems.length} problem(s) in ${new Set(report.problems.map(p => p.file)).size} of ${report.files} scenario file(s)`)
      process.exitCode = exitFor('E_LINT')
    } else this.log(`${report.scenarios} scenario(s) in ${report.files} file(s): no problems`)
    return report
  }
}

function shown(file: string): string {
  return shownFrom(process.cwd(), file)
}
