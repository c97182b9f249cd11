import {Flags} from '../vendor/oclif.js'
import {ExpCommand} from '../cli/base.js'
import {discoverRepo} from '../store/index.js'
import {initResearch, type InitResult} from '../research/init.js'
import {addExample, EXAMPLES, type ExampleResult} from '../research/example.js'

export default class Init extends ExpCommand {
  static summary = 'Set up exp in this git repository: .research/ defaults and research refspecs.'
  static description = `Writes .research/config.yaml, contract.yaml and policy.yaml with commented defaults (existing files are kept), and adds fetch/push refspecs for refs/research/* (never refs/research/private/*) to every existing remote, so plain git fetch/push carry the lanes. Safe to run again.`
  static enableJsonFlag = true
  static examples = ['<%= config.bin %> init', 'git init demo && cd demo && <%= config.bin %> init --example onboarding']
  static flags = {
    example: Flags.string({description: `also copy a built-in benchmark and commit it (${Object.keys(EXAMPLES).join(', ')})`}),
  }

  async run(): Promise<InitResult & {example?: ExampleResult}> {
    const {flags} = await this.parse(Init)
    const repo = discoverRepo(this.workDir)
    const res: InitResult & {example?: ExampleResult} = await initResearch(repo)
    if (flags.example) res.example = await addExample(repo, flags.example)
    if (!this.jsonEnabled()) {
      for (const f of res.created) this.log(`created ${f}`)
      for (const f of res.kept) this.log(`kept    ${f} (already there)`)
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
