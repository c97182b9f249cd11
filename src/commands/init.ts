import {Flags} from '../vendor/oclif.js'
import {ExpCommand} from '../cli/base.js'
import {discoverRepo} from '../store/index.js'
import {readBranchView} from '../cli/branches.js'
import {branchNameProblem, defaultBranch} from '../research/main-branch.js'
import {setUpResearch, type SetUpResult} from '../research/setup.js'
import {EXAMPLES} from '../research/example.js'
import {existsSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {loadConfig, loadPolicy, RESEARCH_DIR} from '../research/files.js'
import {UsageError} from '../errors/index.js'

export default class Init extends ExpCommand {
  static summary = 'Set up exp in this git repository: .research/ defaults and research refspecs.'
  static description = `Writes .research/config.yaml, contracts/skills.yaml (what a pull request may change) and policy.yaml with commented defaults (existing files are kept), and adds fetch/push refspecs for refs/research/* (never refs/research/private/*) to every existing remote, so plain git fetch/push carry the lanes. Safe to run again.
config.yaml records the repository's default branch as main_branch (the branch HEAD points to in a fresh repository, whether it is called main, master or anything else; --main to choose); a later \`git branch -m\` of it is followed.
--example copies a built-in benchmark (scenarios and the initial skill) and commits it; the repository's hooks and commit signing apply to that commit (--no-verify skips the hooks). If anything fails, what this run created is removed again.`
  static enableJsonFlag = true
  static jsonOutput = '{repo, bare, created (files written), kept (files already there), refspecs (remotes given the research refspecs)}.'
  static examples = ['<%= config.bin %> init', 'git init demo && cd demo && <%= config.bin %> init --example onboarding', '<%= config.bin %> init --main trunk']
  static flags = {
    example: Flags.string({description: `also copy a built-in benchmark and commit it (${Object.keys(EXAMPLES).join(', ')})`}),
    main: Flags.string({description: 'the branch promotions merge into (default: the repository\'s default branch)'}),
    'no-verify': Flags.boolean({description: "commit the example without running the repository's git hooks (git commit --no-verify)", dependsOn: ['example']}),
  }

  async run(): Promise<SetUpResult> {
    const {flags} = await this.parse(Init)
    // (what --main says is written as main_branch: a branch name, as the file is held to)
    const bad = flags.main !== undefined && (flags.main.trim() ? branchNameProblem(flags.main) : 'it is empty')
    if (bad) throw new UsageError(flags.main?.trim() ? `--main ${JSON.stringify(flags.main)} is not a branch name: ${bad}` : '--main is empty', 'name the branch promotions merge into, e.g. --main main (or leave the flag out for the default branch); nothing was written')
    const repo = discoverRepo(this.workDir)
    // files kept from an earlier init must still be valid: "set up" over a broken config would
    // send the user to the next command to find out
    let keptMain: string | undefined
    if (repo.workDir && existsSync(path.join(repo.workDir, RESEARCH_DIR, 'config.yaml'))) {
      const kept = await loadConfig(repo.workDir)
      if (flags.main !== undefined && kept.main_branch !== undefined && kept.main_branch !== flags.main) throw new UsageError(`--main ${flags.main}: ${RESEARCH_DIR}/config.yaml already records main_branch: ${kept.main_branch}`, `edit main_branch in ${RESEARCH_DIR}/config.yaml (init keeps existing files)`)
      keptMain = kept.main_branch
    }
    if (repo.workDir && existsSync(path.join(repo.workDir, RESEARCH_DIR, 'policy.yaml'))) await loadPolicy(repo.workDir)
    const mainBranch = flags.main ?? defaultBranch(await readBranchView(repo, {renames: false}))
    // the example is committed where HEAD is: that must be the main branch, or the skills and
    // policy land where no promotion looks for them (a detached HEAD, a feature branch)
    if (flags.example && repo.workDir) {
      const main = keptMain ?? mainBranch
      const head = readFileSync(path.join(repo.gitDir, 'HEAD'), 'utf8').trim()
      const on = head.startsWith('ref: refs/heads/') ? head.slice('ref: refs/heads/'.length) : undefined
      if (on !== main) throw new UsageError(`--example commits onto the main branch, ${main}, but ${on ? `the branch checked out is ${on}` : `HEAD is detached at ${head.slice(0, 12)}`}; nothing was written`, `switch to it first (\`git switch ${main}\`) and run the command again${on && !keptMain ? `, or make ${on} the main branch with --main ${on}` : ''}`)
    }
    const res = await setUpResearch(repo, {mainBranch, example: flags.example, noVerify: flags['no-verify']})
    if (!this.jsonEnabled()) {
      for (const f of res.created) this.log(`created ${f}`)
      for (const f of res.kept) this.log(`kept    ${f} (already there)`)
      if (res.main_branch) this.log(`main    ${res.main_branch} (main_branch: the branch promotions merge into)`)
      for (const r of res.refspecs) this.log(`config  ${r}`)
      if (res.bare) this.log('bare repository: refspecs only (no work tree for .research/)')
      if (res.example) {
        for (const f of res.example.copied) this.log(`copied  ${f}`)
        if (res.example.sealed) this.log(`sealed  ${res.example.sealed.scenarios} evaluator-only file(s) into ${res.example.sealed.file}`)
        for (const a of res.example.sealed?.advice ?? []) this.log(`key     ${a}`)
        if (res.example.commit) this.log(`commit  ${res.example.commit.slice(0, 12)} exp: add the ${res.example.example} example`)
      }
      this.log(`exp is set up in ${res.repo}`)
    }
    return res
  }
}
