import {Flags} from '../vendor/oclif.js'
import {loadConfig} from '../research/files.js'
import type {GitRecordStore} from '../store/index.js'

/** The flag of the read-only history views (provenance, blame, report). */
export const mainFlag = {main: Flags.string({description: 'branch whose history to read (default: config main_branch, else main)'})}

/** refs/heads/<--main, else .research/config.yaml main_branch, else main>. */
export async function mainRefOf(store: GitRecordStore, cwd: string, flag?: string): Promise<string> {
  const branch = flag ?? (await loadConfig(store.repo.workDir ?? cwd)).main_branch ?? 'main'
  return branch.startsWith('refs/') ? branch : `refs/heads/${branch}`
}
