import {ExpCommand} from '../cli/base.js'
import {plainText} from '../cli/plain.js'
import {withStore} from '../cli/context.js'
import {table} from '../cli/table.js'
import type {LaneInfo} from '../store/index.js'
import {exitFor} from '../errors/index.js'

export default class Lanes extends ExpCommand {
  static summary = 'List lanes with their tip, record count and last lamport clock.'
  static description = 'One line per lane ref under refs/research/lanes/ and refs/research/private/: public or private (never pushed), the tip commit, how many records it holds and the highest lamport clock among them. Lanes are per agent or per person; see docs/frontier.md. A lane whose ref names no commit, or whose history lost objects, is listed as UNREADABLE (with --json: its `problem`), and the command exits 5.'
  static enableJsonFlag = true
  static jsonOutput = 'an array of {lane, ref, private, tip, records, lastLamport}; a lane that cannot be read also has its problem.'
  static examples = ['<%= config.bin %> lanes', '<%= config.bin %> lanes --json']

  async run(): Promise<LaneInfo[]> {
    await this.parse(Lanes)
    const lanes = await withStore(this.workDir, store => store.lanes())
    if (!this.jsonEnabled()) {
      this.log(table(lanes.map(l => [l.lane, l.private ? 'private' : 'public', l.tip.slice(0, 12) || '-', l.problem ? 'UNREADABLE' : l.records, l.problem ? '-' : l.lastLamport]), ['LANE', 'VISIBILITY', 'TIP', 'RECORDS', 'LAST LAMPORT']) || '(no lanes yet: append a record with `exp append`)')
    }
    const bad = lanes.filter(l => l.problem)
    if (bad.length) {
      // the table is printed; the status says that some lanes could not be read
      process.stderr.write(`${plainText(`error: ${bad.length} lane(s) could not be read: ${bad.map(l => l.ref).join(', ')}`)}\nhint: run \`exp fsck\` for details and what to do\n`)
      process.exitCode = exitFor('E_INTEGRITY')
    }
    return lanes
  }
}
