import fs from 'node:fs'
import {readGitConfig} from './config.js'
import {hasNativeGit, runGit} from './run.js'
import type {RepoPaths} from './repo.js'

/** Refspecs that make plain `git fetch` / `git push` carry the public research refs (never private/). */
export const FETCH_SPECS = ['refs/research/*:refs/research/*', '^refs/research/private/*']
export const PUSH_SPECS = ['HEAD', 'refs/research/*:refs/research/*', '^refs/research/private/*']

export function remotes(repo: RepoPaths): {name: string; url: string}[] {
  const cfg = readGitConfig(repo.commonDir)
  const out: {name: string; url: string}[] = []
  for (const [k, v] of cfg) {
    const m = /^remote\.(.+)\.url$/.exec(k)
    if (m) out.push({name: m[1]!, url: v[v.length - 1]!})
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : 1))
}

/** Add a multi-valued config entry unless that exact value is already there. */
export async function addConfigValue(repo: RepoPaths, key: string, value: string): Promise<boolean> {
  const have = readGitConfig(repo.commonDir).get(key.replace(/^remote\.([^.]+)\.(.*)$/, (_, r, k) => `remote.${r}.${k.toLowerCase()}`)) ?? []
  if (have.includes(value)) return false
  if (await hasNativeGit()) await runGit(['--git-dir', repo.commonDir, 'config', '--add', key, value], {cwd: repo.commonDir})
  else {
    const {default: git} = await import('isomorphic-git')
    await git.setConfig({fs, gitdir: repo.commonDir, path: key, value, append: true})
  }
  return true
}

/** Configure every existing remote to fetch and push refs/research/* (idempotent). Returns what changed. */
export async function addResearchRefspecs(repo: RepoPaths): Promise<string[]> {
  const changed: string[] = []
  for (const {name} of remotes(repo)) {
    for (const spec of FETCH_SPECS) if (await addConfigValue(repo, `remote.${name}.fetch`, spec)) changed.push(`remote.${name}.fetch ${spec}`)
    for (const spec of PUSH_SPECS) if (await addConfigValue(repo, `remote.${name}.push`, spec)) changed.push(`remote.${name}.push ${spec}`)
  }
  return changed
}
