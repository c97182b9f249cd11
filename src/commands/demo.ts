import {Flags} from '@oclif/core'
import {mkdtempSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {ExpCommand} from '../cli/base.js'
import {runStoreDemo, type StoreDemoResult} from '../demo/store-demo.js'

export default class Demo extends ExpCommand {
  static summary = 'Run the built-in example end to end in a fresh repository (no API key needed).'
  static description = 'Makes a new git repository (a temp folder unless --dir), sets exp up in it, appends a small provenance chain of records on two lanes, and lists the ledger. It never writes into the repository it is started from.'
  static enableJsonFlag = true
  static flags = {
    dir: Flags.string({description: 'folder for the new repository (must not exist or be empty; default: a temp folder)'}),
  }

  async run(): Promise<StoreDemoResult> {
    const {flags} = await this.parse(Demo)
    const dir = flags.dir ? path.resolve(this.workDir, flags.dir) : mkdtempSync(path.join(os.tmpdir(), 'exp-demo-'))
    const res = await runStoreDemo(dir, (line: string) => !this.jsonEnabled() && this.log(line))
    return res
  }
}
