import {Args} from '../vendor/oclif.js'
import {ExpCommand} from '../cli/base.js'
import {discoverRepo} from '../store/index.js'
import {sync, type SyncResult} from '../store/git/sync.js'
import {ExpError} from '../errors/index.js'

export default class Sync extends ExpCommand {
  static summary = 'Fetch and push the research lanes and proposal branches in one step.'
  static description = `Carries refs/research/* (never refs/research/private/*) and refs/heads/exp/proposal/*. Refspecs are non-forcing: a lane that diverged (two writers used one lane name in two clones) is rejected and reported, never overwritten; the command then exits non-zero.
Works with a local path or ssh remote (through the git binary) and with an http(s) remote (through isomorphic-git).`
  static enableJsonFlag = true
  static examples = ['<%= config.bin %> sync', '<%= config.bin %> sync origin', '<%= config.bin %> sync ../shared-repo.git']
  static args = {remote: Args.string({description: 'remote name, path or URL (default: git config exp.remote, else origin)'})}

  async run(): Promise<SyncResult> {
    const {args} = await this.parse(Sync)
    const res = await sync(discoverRepo(this.workDir), args.remote)
    if (!this.jsonEnabled()) {
      for (const u of res.fetched) this.log(`fetched ${u.ref} ${u.from ? `${u.from.slice(0, 8)}..` : '(new) '}${u.to.slice(0, 8)}`)
      for (const u of res.pushed) this.log(`pushed  ${u.ref} ${u.to.slice(0, 8)}`)
      for (const x of res.rejected) this.log(`REJECTED ${x.direction} ${x.ref}: ${x.reason}`)
      this.log(`synced with ${res.remote} (${res.transport}): ${res.fetched.length} fetched, ${res.pushed.length} pushed, ${res.rejected.length} rejected`)
    }
    if (res.rejected.length) throw new ExpError('E_DIVERGED', `${res.rejected.length} ref(s) diverged and were not overwritten: ${res.rejected.map(r => r.ref).join(', ')}`, {hint: 'give each writer its own lane (--lane, EXP_LANE or git config exp.lane); a diverged lane is never clobbered', data: {...res}})
    return res
  }
}
