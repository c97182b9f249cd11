import path from 'node:path'
import {Flags} from '../vendor/oclif.js'
import {ExpCommand} from '../cli/base.js'
import {holdoutKeyFile} from '../cli/run-context.js'
import {discoverRepo} from '../store/index.js'
import {loadConfig} from '../research/files.js'
import {assertSealable, keyAdvice, sealHoldout, writeNewKey, type SealResult} from '../research/seal.js'
import {loadContract} from '../contracts/load.js'
import {privatePath, sealPrivateData} from '../attempts/private-data.js'
import {keyId} from '../scenarios/sealed.js'
import {ExpError} from '../errors/index.js'
import {findHoldoutKey} from '../scenarios/key.js'
import {runGit} from '../git/run.js'
import {refuseLinkOnTheWay} from '../work-file.js'

export interface SealCommandResult extends SealResult {
  key_source: string
  new_key: boolean
  /** sealed files that plain git history still holds in the clear */
  in_history: string[]
}

export default class Seal extends ExpCommand {
  static summary = 'Seal the held-out split: encrypt every held-out scenario into scenarios/holdout.sealed.'
  static description = `Every scenario with \`split: holdout\` is encrypted (AES-256-GCM) into one committed file, scenarios/holdout.sealed, and the plain files are removed from the work tree. Runs of the held-out split (exp run holdout, eval, promote, gate) then decrypt it in memory with the key from EXP_HOLDOUT_KEY, EXP_HOLDOUT_KEY_FILE or .git/exp/holdout.key; agents, pull requests and clones without the key never see the tasks, expected states or gold trajectories (docs/trust.md).
Without a key, a new one is written to .git/exp/holdout.key (never committed): store it as the CI secret EXP_HOLDOUT_KEY. Sealing again adds new plain held-out files to the sealed ones. A file that looks like a held-out scenario (\`split: holdout\` in its YAML, or an id or name starting with hold-) but does not parse is refused with its file:line (exit 2, nothing written): it could not be sealed, and would stay in the work tree in the clear. Commit the result afterwards. Files that were committed in the clear before stay readable in git history: the command lists them.`
  static enableJsonFlag = true
  static jsonOutput = '{file (scenarios/holdout.sealed), sealed (files), removed, key_id, key_source, new_key, in_history (held-out files still in git history)}.'
  static examples = ['<%= config.bin %> seal', 'EXP_HOLDOUT_KEY=$(cat key.hex) <%= config.bin %> seal --json', '<%= config.bin %> seal && git add scenarios && git commit -m "seal the held-out split"']
  static flags = {
    scenarios: Flags.string({description: 'folder of scenario files (default: config scenarios, else scenarios/)'}),
    contract: Flags.string({description: "seal this research contract's evaluator-only data (its private_data globs) into .research/contracts/NAME.private.sealed instead"}),
  }

  async run(): Promise<SealCommandResult> {
    const {flags} = await this.parse(Seal)
    const repo = discoverRepo(this.workDir)
    const root = repo.workDir ?? this.workDir
    // sealing writes the sealed file into the scenarios folder (a contract's: into
    // .research/contracts/) and removes the plain ones there: never through a folder of the
    // work tree that is a link (checked before a key is made)
    const scenariosDir = flags.contract ? undefined : path.resolve(this.workDir, flags.scenarios ?? path.join(root, (await loadConfig(root)).scenarios ?? 'scenarios'))
    if (repo.workDir) refuseLinkOnTheWay(repo.workDir, scenariosDir ?? path.join(root, privatePath(flags.contract!)), !!scenariosDir)
    // a held-out file that does not parse stops sealing before a key is made or anything written
    if (scenariosDir) await assertSealable(scenariosDir)
    const file = holdoutKeyFile(repo.commonDir)
    const found = await findHoldoutKey({env: process.env, defaultFile: file})
    const key = found?.key ?? (await writeNewKey(file))
    let res: SealResult
    let shown: string
    if (flags.contract) {
      const contract = await loadContract(root, flags.contract)
      if (!contract.private_data.length) throw new ExpError('E_USAGE', `contract ${contract.name} names no private_data`, {hint: 'list evaluator-only files under private_data in the contract (docs/contracts.md)'})
      const p = await sealPrivateData(root, contract, key)
      res = {file: p.file, sealed: p.sealed, removed: p.removed, key_id: keyId(key)}
      shown = '.research/contracts'
    } else {
      const dir = scenariosDir!
      res = await sealHoldout(dir, key)
      res = {...res, sealed: res.sealed.map(n => path.relative(root, path.join(dir, n))), removed: res.removed.map(n => path.relative(root, path.join(dir, n)))}
      shown = path.relative(this.workDir, dir) || '.'
    }
    // (`--root`: with log.showRoot=false the first commit's files were not listed, and held-out
    // files committed in it in the clear went unmentioned; `-z`: names as they are, unquoted)
    const tracked = repo.workDir ? (await runGit(['log', '--all', '--root', '-z', '--format=', '--name-only', '--', ...res.sealed], {cwd: root, allowFail: true})).stdout.toString().split(/[\0\n]/).filter(Boolean) : []
    const out: SealCommandResult = {...res, key_source: found?.source ?? file, new_key: !found, in_history: [...new Set(tracked)].sort()}
    if (!this.jsonEnabled()) {
      // (nothing plain left to seal and the sealed file there already: it was left as it was)
      const unchanged = !res.removed.length && found
      this.log(unchanged ? `nothing new to seal: ${res.file} already holds ${res.sealed.length} file(s), left as it was` : `sealed ${res.sealed.length} file(s) into ${res.file}${res.removed.length ? `; removed ${res.removed.length} plain file(s) from the work tree` : ''}`)
      if (!found) for (const line of keyAdvice(file, key)) this.log(line)
      if (out.in_history.length) this.note(`warning: ${out.in_history.length} sealed file(s) are in git history in the clear (${out.in_history.slice(0, 3).join(', ')}${out.in_history.length > 3 ? ', …' : ''}): anyone with a clone can read them; consider new ones`)
      if (!unchanged) this.log(`next: git add -A ${shown} && git commit -m "seal evaluator-only data"`)
    }
    return out
  }
}
