import {Args, Flags} from '../vendor/oclif.js'
import {ExpCommand} from '../cli/base.js'
import {discoverRepo} from '../store/index.js'
import {sync, SYNC_TIMEOUT_MS, type SyncResult} from '../store/git/sync.js'
import {DivergedError, RefusedError} from '../errors/index.js'
import {loadConfig} from '../research/files.js'

export default class Sync extends ExpCommand {
  static summary = 'Fetch and push the research lanes, proposal branches and attempt branches in one step.'
  static description = `Carries refs/research/* (never refs/research/private/*), refs/heads/exp/proposal/* and refs/heads/exp/attempt/*. Refspecs are non-forcing: a lane that diverged (two writers used one lane name in two clones) is reported, never overwritten, and every other ref is still synced — except a lane whose new records cite records of the diverged one, which is held back (HELD) until that lane is pushed, so that the remote never holds records citing what it does not have; the command then exits 4. A ref the remote refuses (a hook, receive.fsckObjects) is reported with the remote's reason, as a refusal; a remote ref that points at anything but a commit, or whose name git does not allow (a hostile server can advertise refs/research/lanes/../../x), is not taken, and reported as a refusal of the fetch. A path is taken from the folder the command runs in. A lane that was rewound in this clone comes back from a remote that still has it.
Sync uses its own refspecs (the fetch refspecs of the remote's config, e.g. those \`exp init\` adds, do not apply to it).
Works with a local path or ssh remote (through the git binary) and with an http(s) remote (through isomorphic-git, with the credentials git fetch would use: your credential helper, http.extraHeader, or a token in the URL, https://USER:TOKEN@host/…; without a terminal nothing prompts). A URL's credentials are never printed, returned with --json or put in a ref name: exp shows it as https://[redacted]@host/…. A remote that cannot be reached, or refuses access, is an error that says which (E_SYNC, exit 1), and nothing recorded is lost. So is a sync that has not finished after --timeout seconds (15 minutes by default): a remote that takes the connection and then says nothing, or answers a byte at a time, no longer keeps it waiting; what was fetched before stays.`
  static enableJsonFlag = true
  static jsonOutput = '{remote, url, transport, fetched, pushed, rejected (refs not updated, with the reason)}.'
  static examples = ['<%= config.bin %> sync', '<%= config.bin %> sync origin', '<%= config.bin %> sync ../shared-repo.git', '<%= config.bin %> sync origin --timeout 3600']
  static args = {remote: Args.string({description: 'remote name, path or URL (default: git config exp.remote, else remote of .research/config.yaml, else origin)'})}
  static flags = {
    timeout: Flags.integer({description: `stop a sync that has not finished after this many seconds (a remote that takes the connection and then says nothing); 0: no limit`, default: SYNC_TIMEOUT_MS / 1000, min: 0, max: 7 * 24 * 3600}),
  }

  async run(): Promise<SyncResult> {
    const {args, flags} = await this.parse(Sync)
    const repo = discoverRepo(this.workDir)
    // (a bare repository has no .research/config.yaml; a remote given is taken without it)
    const cfg = repo.workDir && args.remote === undefined ? await loadConfig(repo.workDir) : undefined
    const res = await sync(repo, args.remote, this.workDir, {timeoutMs: flags.timeout === 0 ? Infinity : flags.timeout * 1000, ...(cfg?.remote !== undefined ? {remote: cfg.remote} : {})})
    if (!this.jsonEnabled()) {
      for (const u of res.fetched) this.log(`fetched ${u.ref} ${u.from ? `${u.from.slice(0, 8)}..` : '(new) '}${u.to.slice(0, 8)}${u.restored ? ' (restored: this clone had seen it before it was rewound)' : ''}`)
      for (const u of res.pushed) this.log(`pushed  ${u.ref} ${u.to.slice(0, 8)}`)
      for (const x of res.rejected) this.log(`${x.kind === 'refused' ? 'REFUSED' : x.kind === 'diverged' ? 'DIVERGED' : x.kind === 'held' ? 'HELD' : 'SKIPPED'} ${x.direction} ${x.ref}: ${x.reason}`)
      this.log(`synced with ${res.remote} (${res.transport}): ${res.fetched.length} fetched, ${res.pushed.length} pushed, ${res.rejected.length} not synced`)
    }
    const refused = res.rejected.filter(x => x.kind === 'refused')
    const diverged = res.rejected.filter(x => x.kind !== 'refused')
    if (refused.length) throw new RefusedError(refused, diverged, {...res})
    if (diverged.length) throw new DivergedError(diverged, {...res})
    return res
  }
}
