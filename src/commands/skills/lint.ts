import path from 'node:path'
import {Args} from '../../vendor/oclif.js'
import {loadConfig} from '../../research/files.js'
import {ExpCommand} from '../../cli/base.js'
import {exitFor} from '../../errors/index.js'
import {lintSkills, type LintProblem, type LintReport} from '../../skills/index.js'

export default class SkillsLint extends ExpCommand {
  static summary = 'Check skill folders: SKILL.md (Agent Skills format, required sections) and PURPOSE.yaml.'

  static description = `Each problem prints as \`file:line: [rule] message\`; the rule ids are listed in docs/skills.md.
Without PATH, every folder under the repository's skills/ is checked (from any subfolder); a PATH is relative to the current folder. Exits 1 when any problem is found.`

  static examples = ['<%= config.bin %> skills lint', '<%= config.bin %> skills lint skills/onboarding --json']

  static enableJsonFlag = true
  static jsonOutput = '{ok, problems, skills: [{dir, name, problems: [{file, line, rule, message}]}]}; exits 1 when a skill has problems.'

  // any number of paths: skill folders, files in them, or folders of skills
  static strict = false

  static args = {
    path: Args.string({description: 'skill folder, SKILL.md, or folder of skills (default: skills/*)', required: false}),
  }

  public async run(): Promise<LintReport> {
    const {argv} = await this.parse(SkillsLint)
    const root = this.repoRoot('skills')
    const report = await lintSkills(argv as string[], {cwd: this.workDir, skillsDir: path.join(root, (await loadConfig(root)).skills ?? 'skills')})
    for (const s of report.skills) for (const p of s.problems) this.log(formatProblem(p))
    const n = report.skills.length
    this.log(report.ok ? `${n} skill${n === 1 ? '' : 's'} ok` : `${report.problems} problem${report.problems === 1 ? '' : 's'} in ${n} skill${n === 1 ? '' : 's'}`)
    if (!report.ok) process.exitCode = exitFor('E_LINT')
    return report
  }
}

function formatProblem(p: LintProblem): string {
  // the column, when known, is in the --json output; the text keeps the `file:line:` form editors link
  return `${p.line === undefined ? p.file : `${p.file}:${p.line}`}: [${p.rule}] ${p.message}`
}
