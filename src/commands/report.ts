import path from 'node:path'
import {Flags} from '../vendor/oclif.js'
import {outputPath, resultsFolder} from '../cli/out-path.js'
import {ExpCommand} from '../cli/base.js'
import {withStore} from '../cli/context.js'
import {authorityOf} from '../cli/trust.js'
import {mainFlag, mainRefOf} from '../cli/main-ref.js'
import {readReport, REPORT_FILES, writeReport, type Report} from '../reports/index.js'
import {GitWorkspace} from '../workspace/git.js'
import {LANE_FAILURES} from '../store/index.js'
import {SkippedNotes} from '../cli/skipped-notes.js'

export default class ReportCmd extends ExpCommand {
  static summary = 'Write the static report: iteration dashboards, success chart, provenance graph, rejections.'
  static description = `Rebuilds every iteration from history (each proposal in ledger order with the train run before it, the evidence behind it — what the knowledge it cites cites, leaving out evidence whose counts are not the runs it cites, which \`exp fsck\` names — its evaluations and its decision) and writes DIR/report.md (Mermaid provenance graph, chart as chart-SKILL.svg), DIR/report.html (one self-contained page: inline CSS and SVG, no script, no external asset) and the chart files. Only public records are shown: held-out results appear as aggregates.
--json prints the report model (the files are written either way). When a lane cannot be read at all, nothing is written (the report would be partial): the lane is named on stderr, --json still prints the model of what could be read, and the command exits 5.`
  static enableJsonFlag = true
  static jsonOutput = 'the report model: {format: exp-report@1, main, ledger: {records, lamport}, skills: [{skill, version, iterations, chart, provenance, rejected}], contracts, research, credit} (the files are written either way, unless a lane cannot be read).'
  static examples = ['<%= config.bin %> report', '<%= config.bin %> report --out site/ --skill onboarding', '<%= config.bin %> report --json']
  static flags = {
    ...mainFlag,
    out: Flags.string({description: 'folder to write into (default: results/ at the top of the repository)'}),
    skill: Flags.string({description: 'only this skill (repeatable; default: every skill on main)', multiple: true}),
  }

  async run(): Promise<Report> {
    const {flags} = await this.parse(ReportCmd)
    // checked before the work: a path that cannot be written fails now
    const dir = outputPath(this.workDir, flags.out ?? resultsFolder(this.workDir, this.repoRoot()), '--out', 'folder', REPORT_FILES)
    // compare, gain and ablation notes of the wrong shape (any lane can write one) are left out, named
    const skipped = new SkippedNotes()
    const {report, unread} = await withStore(this.workDir, async store => {
      const trust = await authorityOf(store, this.workDir, {main: flags.main})
      const unread = trust.ledger.problems.filter(p => LANE_FAILURES.has(p.code)).map(p => p.ref)
      return {report: await readReport(store, new GitWorkspace(store), {mainRef: await mainRefOf(store.repo, this.workDir, flags.main, l => this.note(l)), ...(flags.skill?.length ? {skills: flags.skill} : {}), trust, skipped: skipped.add}), unread}
    })
    skipped.report(l => this.note(l))
    // a report without the lanes that could not be read would replace a whole one with a partial
    // one: the files are left as they are (authorityOf said which lanes, and set the status, 5)
    if (unread.length) {
      this.note(`warning: nothing written to ${path.relative(process.cwd(), dir) || '.'}: the report would leave out ${unread.length} lane(s) that could not be read (${unread.join(', ')})`)
      return report
    }
    const written = await writeReport(report, dir)
    if (!this.jsonEnabled()) for (const f of written.files) this.log(path.relative(process.cwd(), f) || f)
    return report
  }
}
