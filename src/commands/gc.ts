import {Flags} from '../vendor/oclif.js'
import {ExpCommand} from '../cli/base.js'
import {discoverRepo} from '../store/index.js'
import {gc, type GcResult} from '../store/git/gc.js'

export default class Gc extends ExpCommand {
  static summary = 'Repository maintenance: pack loose objects and small packs, pack refs.'
  static description = 'exp writes records as loose objects (single appends) or one small pack per batch; this runs `git gc` and `git pack-refs --all` so reads stay fast.'
  static enableJsonFlag = true
  static examples = ['<%= config.bin %> gc', '<%= config.bin %> gc --aggressive --json']
  static flags = {aggressive: Flags.boolean({description: 'pass --aggressive to git gc (slower, smaller)'})}

  async run(): Promise<GcResult> {
    const {flags} = await this.parse(Gc)
    const res = await gc(discoverRepo(this.workDir), {aggressive: flags.aggressive})
    if (!this.jsonEnabled()) this.log(`loose objects ${res.looseBefore} -> ${res.looseAfter}, packs ${res.packsBefore} -> ${res.packsAfter}`)
    return res
  }
}
