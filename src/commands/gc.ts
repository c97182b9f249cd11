import {Flags} from '../vendor/oclif.js'
import {ExpCommand} from '../cli/base.js'
import {discoverRepo} from '../store/index.js'
import {gc, type GcResult} from '../store/git/gc.js'

export default class Gc extends ExpCommand {
  static summary = 'Repository maintenance: remove dead writers\' temp files, pack loose objects and small packs, pack refs.'
  static description = 'exp writes records as loose objects (single appends) or one small pack per batch; this runs `git gc` and `git pack-refs --all` so reads stay fast. First it removes what writers that were killed left behind: temp object and pack files, pack keeps, lock temp files, the work trees of attempt evaluations (only of processes that are gone), and the git locks a killed exp sync left in its copies of the refs of a remote. Safe to run while other exp processes append.'
  static enableJsonFlag = true
  static jsonOutput = '{looseBefore, packsBefore, looseAfter, packsAfter, garbage (temp files and work trees removed)}.'
  static examples = ['<%= config.bin %> gc', '<%= config.bin %> gc --aggressive --json']
  static flags = {aggressive: Flags.boolean({description: 'pass --aggressive to git gc (slower, smaller)'})}

  async run(): Promise<GcResult> {
    const {flags} = await this.parse(Gc)
    const res = await gc(discoverRepo(this.workDir), {aggressive: flags.aggressive})
    if (!this.jsonEnabled()) {
      if (res.garbage.length) this.log(`removed ${res.garbage.length} file(s) left by killed writers`)
      this.log(`loose objects ${res.looseBefore} -> ${res.looseAfter}, packs ${res.packsBefore} -> ${res.packsAfter}`)
    }
    return res
  }
}
