import {Flags} from '../vendor/oclif.js'
import {mkdtempSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {ExpCommand} from '../cli/base.js'
import {runLoopDemo, type LoopDemoResult} from '../demo/loop-demo.js'
import {expInvocation, shellWord} from '../cli/invocation.js'

export default class Demo extends ExpCommand {
  static summary = 'The main job on the built-in benchmark, in a fresh repository (no API key needed).'
  static description = 'Makes a new git repository (a temp folder unless --dir), copies the onboarding example into it (exp init --example onboarding), evolves the skill with the scripted agent (exp evolve), writes the report (exp report) and prints where everything is. It never writes into the repository it is started from, nor makes its own inside one. Stopped (Ctrl-C), the same command with the same --dir finishes that demo.'
  static enableJsonFlag = true
  static jsonOutput = '{dir (the new repository), evolve (what exp evolve --json gives), report (the files written)}.'
  static examples = ['<%= config.bin %> demo', '<%= config.bin %> demo --dir /tmp/exp-demo --iterations 5']
  static flags = {
    dir: Flags.string({description: 'folder for the new repository (new or empty; default: a temp folder)'}),
    iterations: Flags.integer({char: 'n', description: 'iterations of the loop', min: 1, default: 10}),
  }

  async run(): Promise<LoopDemoResult> {
    const {flags} = await this.parse(Demo)
    const dir = flags.dir ? path.resolve(this.workDir, flags.dir) : mkdtempSync(path.join(os.tmpdir(), 'exp-demo-'))
    return runLoopDemo(dir, {iterations: flags.iterations, say: line => !this.jsonEnabled() && this.log(line), exp: expInvocation(), quote: shellWord})
  }
}
