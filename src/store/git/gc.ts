import {ExpError} from '../../errors/index.js'
import {hasNativeGit, runGit} from './native.js'
import type {RepoPaths} from './repo.js'
import fs from 'node:fs'
import path from 'node:path'

export interface GcResult {
  looseBefore: number
  packsBefore: number
  looseAfter: number
  packsAfter: number
}

function countObjects(commonDir: string): {loose: number; packs: number} {
  let loose = 0
  const objects = path.join(commonDir, 'objects')
  for (const d of fs.readdirSync(objects)) if (/^[0-9a-f]{2}$/.test(d)) loose += fs.readdirSync(path.join(objects, d)).length
  const packs = fs.existsSync(path.join(objects, 'pack')) ? fs.readdirSync(path.join(objects, 'pack')).filter(f => f.endsWith('.idx')).length : 0
  return {loose, packs}
}

/** Repository maintenance: pack loose objects and small packs into one, keep refs packed. */
export async function gc(repo: RepoPaths, opts: {aggressive?: boolean} = {}): Promise<GcResult> {
  if (!(await hasNativeGit())) throw new ExpError('E_USAGE', 'exp gc needs the git binary (isomorphic-git cannot repack)', {hint: 'install git and run `exp gc` again'})
  const before = countObjects(repo.commonDir)
  await runGit(['--git-dir', repo.commonDir, 'gc', '--quiet', ...(opts.aggressive ? ['--aggressive'] : [])], {cwd: repo.commonDir})
  await runGit(['--git-dir', repo.commonDir, 'pack-refs', '--all'], {cwd: repo.commonDir})
  const after = countObjects(repo.commonDir)
  return {looseBefore: before.loose, packsBefore: before.packs, looseAfter: after.loose, packsAfter: after.packs}
}
