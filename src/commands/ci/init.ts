import {Flags} from '../../vendor/oclif.js'
import {mkdir, writeFile, access} from 'node:fs/promises'
import path from 'node:path'
import {ExpCommand} from '../../cli/base.js'
import {discoverRepo} from '../../store/index.js'
import {ExpError} from '../../errors/index.js'

export const WORKFLOW = (install: string) => `# Written by \`exp ci init\`: the promotion gate on pull requests that change a skill.
name: exp gate
on:
  pull_request:
    paths:
      - 'skills/**'
permissions:
  contents: read
jobs:
  gate:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0
      - uses: actions/setup-node@v4
        with:
          node-version: 20
      - name: install exp
        run: npm install --global ${install}
      - name: fetch the research lanes
        run: git fetch origin 'refs/research/*:refs/research/*' '^refs/research/private/*' || true
      - name: gate
        run: exp gate --base origin/\${{ github.base_ref }} --head HEAD
`

export default class CiInit extends ExpCommand {
  static summary = 'Write .github/workflows/exp-gate.yml: run `exp gate` on pull requests that touch skills/**.'
  static enableJsonFlag = true
  static flags = {
    install: Flags.string({description: 'what `npm install --global` installs (package name, git URL or tarball)', default: 'experience-compiler'}),
    force: Flags.boolean({description: 'overwrite an existing workflow file'}),
  }

  async run(): Promise<{file: string; written: boolean}> {
    const {flags} = await this.parse(CiInit)
    const repo = discoverRepo(this.workDir)
    if (!repo.workDir) throw new ExpError('E_USAGE', 'a bare repository has no work tree for .github/', {hint: 'run it in a clone'})
    const file = path.join(repo.workDir, '.github', 'workflows', 'exp-gate.yml')
    const exists = await access(file).then(() => true, () => false)
    if (exists && !flags.force) {
      if (!this.jsonEnabled()) this.log(`kept ${path.relative(this.workDir, file)} (already there; --force to overwrite)`)
      return {file, written: false}
    }
    await mkdir(path.dirname(file), {recursive: true})
    await writeFile(file, WORKFLOW(flags.install))
    if (!this.jsonEnabled()) this.log(`wrote ${path.relative(this.workDir, file)}: commit it, and pull requests that change skills/** get the gate`)
    return {file, written: true}
  }
}
