import {ExpCommand} from '../cli/base.js'
import {withStore} from '../cli/context.js'
import {table} from '../cli/table.js'
import type {LaneInfo} from '../store/index.js'

export default class Lanes extends ExpCommand {
  static summary = 'List lanes with their tip, record count and last lamport clock.'
  static description = 'One line per lane ref under refs/research/lanes/ and refs/research/private/: public or private (never pushed), the tip commit, how many records it holds and the highest lamport clock among them. Lanes are per agent or per person; see docs/frontier.md.'
  static enableJsonFlag = true
  static examples = ['<%= config.bin %> lanes', '<%= config.bin %> lanes --json']

  async run(): Promise<LaneInfo[]> {
    await this.parse(Lanes)
    const lanes = await withStore(this.workDir, store => store.lanes())
    if (!this.jsonEnabled()) {
      this.log(table(lanes.map(l => [l.lane, l.private ? 'private' : 'public', l.tip.slice(0, 12), l.records, l.lastLamport]), ['LANE', 'VISIBILITY', 'TIP', 'RECORDS', 'LAST LAMPORT']) || '(no lanes yet: append a record with `exp append`)')
    }
    return lanes
  }
}
