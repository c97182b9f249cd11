import {Flags} from '../../vendor/oclif.js'
import {mkdir, access, rm, lstat, readFile} from 'node:fs/promises'
import {runGit} from '../../git/run.js'
import path from 'node:path'
import {ExpCommand} from '../../cli/base.js'
import {mainRefOf} from '../../cli/main-ref.js'
import {discoverRepo} from '../../store/index.js'
import {ExpError} from '../../errors/index.js'
import {checkInstallSpec, workflowYaml, type Install} from '../../gate/workflow.js'
import {packSelf, vendoredCopies, vendoredPath} from '../../gate/self-package.js'
import {writeOutputFile} from '../../write-output.js'
import {fileOnTheWay, refuseLinkOnTheWay} from '../../work-file.js'

export interface CiInitResult {
  file: string
  written: boolean
  main_branch: string
  /** the npm install spec, or the path of the packed copy of exp the workflow installs from the base branch */
  install: string
  /** the packed copy written (its path), when the workflow installs one */
  vendored?: {file: string; bytes: number}
  /** packed copies of other exp versions removed (the workflow no longer names them) */
  removed?: string[]
  /** the packed copy is ignored by a .gitignore (commit it with git add -f) */
  ignored?: boolean
  shards: number
}

export default class CiInit extends ExpCommand {
  static summary = 'Write .github/workflows/exp-gate.yml: `exp gate` on every pull request to the main branch.'
  static description = `The workflow runs on every pull request to the main branch (main_branch of .research/config.yaml) and on every review of one (an approving review can waive a neutral change: allow_neutral); the gate itself decides what is in scope from the base's contract. It installs exp from a packed copy of this very exp that it commits beside the workflow (.github/exp/experience-compiler-VERSION.tgz, ~2 MB), taken from the base branch, never from the pull request (a pull request that replaced the file would choose the exp that judges it), or with \`npm install --global\` of --install; then it fetches the public research lanes (a failed fetch fails the job), runs \`exp gate --require-certified --junit exp-gate.xml --comment exp-gate.md\` with EXP_HOLDOUT_KEY from the repository secret of that name (without it a sealed held-out split cannot be judged, and the gate fails: not certified), uploads the JUnit report and keeps ONE pull-request comment with the result, updated on every run.
Actions are pinned by full commit id (the tag in a comment), Node.js is a current LTS, the job has a timeout, a concurrency group per pull request and only contents: read and pull-requests: write.
--shards N (2 or more) splits the validation episodes over N parallel jobs of a matrix (\`exp gate --shard I/N\`), each handing its lane to the deciding job as a git bundle in an artifact of the run; the deciding job gathers them and runs \`exp gate --shards N\`, with the same result as one job.
--install takes one npm install spec (package@version, once the package is on your registry; a tarball URL; a git URL pinned to a commit such as github:OWNER/REPO#COMMIT); it is passed to the shell as an environment variable, never as shell text. A path in the repository, or relative to it, is refused: the job would install it from the pull request's checkout.`
  static enableJsonFlag = true
  static jsonOutput = '{file, written, main_branch, install, vendored ({file, bytes} of the packed exp written), removed (packed copies of other versions), ignored (the packed copy is ignored by a .gitignore), shards}.'
  static examples = [
    '<%= config.bin %> ci init',
    '<%= config.bin %> ci init --install experience-compiler@0.1.0 --force',
    '<%= config.bin %> ci init --install github:acme/exp#8f3e2a1c9d0b4e5f6a7b8c9d0e1f2a3b4c5d6e7f --force',
    '<%= config.bin %> ci init --install https://example.com/experience-compiler-0.1.0.tgz',
    '<%= config.bin %> ci init --shards 4 --force',
  ]
  static flags = {
    install: Flags.string({description: 'what the workflow installs with `npm install --global`: package@version, tarball URL, or git URL (default: a packed copy of this exp, committed under .github/exp/ and installed from the base branch)'}),
    force: Flags.boolean({description: 'overwrite an existing workflow file'}),
    shards: Flags.integer({description: 'validation episodes in this many parallel jobs, then one deciding job (1: a single job)', min: 1, max: 64, default: 1}),
  }

  async run(): Promise<CiInitResult> {
    const {flags} = await this.parse(CiInit)
    const repo = discoverRepo(this.workDir)
    if (!repo.workDir) throw new ExpError('E_USAGE', 'a bare repository has no work tree for .github/', {hint: 'run it in a clone'})
    const install: Install = flags.install === undefined ? {vendored: vendoredPath(this.config.version)} : {spec: checkInstallSpec(flags.install)}
    const shownInstall = 'spec' in install ? install.spec : install.vendored
    const mainBranch = (await mainRefOf(repo, this.workDir, undefined, l => this.note(l))).replace(/^refs\/heads\//, '')
    const file = path.join(repo.workDir, '.github', 'workflows', 'exp-gate.yml')
    const shown = path.relative(this.workDir, file) || file
    // (a committed `.github -> elsewhere` would take the workflow out of the work tree)
    refuseLinkOnTheWay(repo.workDir, file)
    const exists = await access(file).then(() => true, () => false)
    const vendoredAt = 'vendored' in install ? install.vendored : undefined
    const copy = vendoredAt ? path.join(repo.workDir, vendoredAt) : undefined
    if (copy) {
      refuseLinkOnTheWay(repo.workDir, copy)
      // (a folder there would be found only after the workflow was written: refused first)
      const st = await lstat(copy).catch(() => undefined)
      if (st && !st.isFile() && !st.isSymbolicLink()) throw new ExpError('E_INVALID_INPUT', `${path.relative(this.workDir, copy)} is ${st.isDirectory() ? 'a folder' : 'not a regular file'}: exp ci init writes its packed copy of exp there`, {hint: `remove it, then run \`exp ci init${flags.force ? ' --force' : ''}\` again`})
    }
    // what would stop the writes is found before exp packs itself (seconds of npm)
    for (const target of copy ? [file, copy] : [file]) {
      const at = fileOnTheWay(repo.workDir, target)
      if (at) throw new ExpError('E_INVALID_INPUT', `${path.relative(this.workDir, at)} is not a folder: exp ci init writes ${path.relative(this.workDir, target)} below it`, {data: {file: path.relative(this.workDir, at)}, hint: `move it away, then run \`exp ci init${flags.force ? ' --force' : ''}\` again`})
    }
    const fileSt = await lstat(file).catch(() => undefined)
    if (fileSt?.isDirectory()) throw new ExpError('E_INVALID_INPUT', `${shown} is a folder: exp ci init writes the workflow file there`, {data: {file: shown}, hint: `remove it, then run \`exp ci init${flags.force ? ' --force' : ''}\` again`})
    if (exists && !flags.force) {
      // a kept workflow that installs a packed copy this folder lacks would fail in CI at `git show`: the copy is written
      const missing = copy && !(await access(copy).then(() => true, () => false)) && (await readFile(file, 'utf8').catch(() => '')).includes(vendoredAt!)
      const vendored = missing && copy ? {file: copy, ...(await packSelf(copy))} : undefined
      if (!this.jsonEnabled()) {
        this.log(`kept ${shown} (already there; --force to overwrite)`)
        if (vendored) this.log(`wrote ${path.relative(this.workDir, vendored.file)} (${(vendored.bytes / 1024 / 1024).toFixed(1)} MB), which the kept workflow installs and was missing: commit it`)
      }
      return {file, written: false, main_branch: mainBranch, install: shownInstall, ...(vendored ? {vendored} : {}), shards: flags.shards}
    }
    const yaml = workflowYaml({mainBranch, install, version: this.config.version, shards: flags.shards})
    const vendored: CiInitResult['vendored'] = copy ? {file: copy, ...(await packSelf(copy))} : undefined
    await mkdir(path.dirname(file), {recursive: true})
    await writeOutputFile(file, yaml)
    // (the copies of other versions an earlier ci init wrote: the workflow no longer names them)
    const stale = vendoredCopies(repo.workDir).filter(p => !('vendored' in install) || p !== install.vendored)
    for (const p of stale) await rm(path.join(repo.workDir, p), {force: true})
    // a `.gitignore` of `*.tgz` would leave the packed copy out of `git add .github`, and the job without an exp to install
    const ignored = copy && (await runGit(['-C', repo.workDir, 'check-ignore', '-q', '--', vendoredAt!], {cwd: repo.workDir, allowFail: true})).code === 0
    if (!this.jsonEnabled()) {
      this.log(`wrote ${shown}: exp gate on every pull request to ${mainBranch}${flags.shards > 1 ? `, validation in ${flags.shards} parallel jobs` : ''}, exp installed ${vendored ? `from the base branch's ${shownInstall}` : `as ${shownInstall}`}`)
      if (vendored) this.log(`wrote ${path.relative(this.workDir, vendored.file)} (${(vendored.bytes / 1024 / 1024).toFixed(1)} MB): this exp, packed; the workflow installs the copy on the base branch, so commit it there with the workflow`)
      for (const p of stale) this.log(`removed ${p} (another exp version's copy; the workflow no longer installs it)`)
      this.log(`next: commit ${vendored ? '.github/ (the workflow and the packed exp)' : 'it'}; add the repository secret EXP_HOLDOUT_KEY if the held-out split is sealed (without it the gate fails: not certified)`)
      // a pull request runs its own copy of the workflow (GitHub reads it from the pull request's merge commit)
      this.log(`then protect ${mainBranch} (GitHub: Settings, Branches): require the status check "gate" (workflow "exp gate") and a code owner's review of .github/ (a CODEOWNERS line \`/.github/ @you\`): a pull request runs its own copy of this workflow, and one that edits it could skip the gate`)
    }
    // (on stderr with --json too: a .gitignore of *.tgz would otherwise ship a workflow with nothing to install)
    if (ignored) this.note(`warning: ${vendoredAt} is ignored by a .gitignore here: add it with \`git add -f ${vendoredAt}\` (the workflow installs it from the base branch)`)
    return {file, written: true, main_branch: mainBranch, install: shownInstall, ...(vendored ? {vendored} : {}), ...(stale.length ? {removed: stale} : {}), ...(ignored ? {ignored: true} : {}), shards: flags.shards}
  }
}
