import fs from 'node:fs'
import {listRefs, readRef} from './refs.js'
import {runGit, hasNativeGit} from './native.js'
import {RefLock} from './lock.js'
import {readGitConfig, configValue} from './config.js'
import type {RepoPaths} from './repo.js'
import {NotFoundError, ExpError} from '../../errors/index.js'

export interface RefUpdate {
  ref: string
  from?: string
  to: string
}

export interface Rejection {
  ref: string
  direction: 'fetch' | 'push'
  reason: string
}

export interface SyncResult {
  remote: string
  url: string
  transport: 'git' | 'isomorphic-git'
  fetched: RefUpdate[]
  pushed: RefUpdate[]
  rejected: Rejection[]
}

/** What sync carries: public research refs and proposal branches; never refs/research/private/. */
export const SYNC_PREFIXES = ['refs/research/', 'refs/heads/exp/proposal/']
const PUSH = ['refs/research/*:refs/research/*', '^refs/research/private/*', 'refs/heads/exp/proposal/*:refs/heads/exp/proposal/*']

function carried(ref: string): boolean {
  return SYNC_PREFIXES.some(p => ref.startsWith(p)) && !ref.startsWith('refs/research/private/')
}

async function snapshot(repo: RepoPaths): Promise<Map<string, string>> {
  const out = new Map<string, string>()
  for (const p of SYNC_PREFIXES) for (const [k, v] of await listRefs(repo.commonDir, p)) if (carried(k)) out.set(k, v)
  return out
}

export function resolveRemote(repo: RepoPaths, remote?: string): {name: string; url: string} {
  const cfg = readGitConfig(repo.commonDir)
  const name = remote ?? configValue(cfg, 'exp.remote') ?? 'origin'
  const url = configValue(cfg, `remote.${name}.url`)
  if (url) return {name, url}
  if (remote && (remote.includes('/') || remote.includes(':'))) return {name: remote, url: remote}
  throw new NotFoundError('remote', name, 'add one with `git remote add origin URL`, or pass a path or URL to `exp sync`')
}

/**
 * Fetch then push the research refs in one step. Refspecs are non-forcing: a lane that
 * diverged (two writers used one lane name in two clones) is rejected and reported, never
 * overwritten. http(s) goes through isomorphic-git; paths and ssh through the git binary.
 */
export async function sync(repo: RepoPaths, remote?: string): Promise<SyncResult> {
  const r = resolveRemote(repo, remote)
  if (/^https?:\/\//.test(r.url)) return syncHttp(repo, r)
  if (!(await hasNativeGit())) throw new ExpError('E_USAGE', `remote ${r.name} (${r.url}) needs the git binary (isomorphic-git only speaks http/https)`, {hint: 'install git, or use an http(s) remote'})
  return syncNative(repo, r)
}

/** Remote-tracking namespace a native fetch lands in before local refs move (never forced into lanes). */
export function trackingRef(remote: string, ref: string): string {
  const name = remote.replace(/[^A-Za-z0-9._-]+/g, '_')
  return ref.startsWith('refs/research/') ? `refs/exp/remotes/${name}/research/${ref.slice('refs/research/'.length)}` : `refs/exp/remotes/${name}/proposal/${ref.slice('refs/heads/exp/proposal/'.length)}`
}

async function syncNative(repo: RepoPaths, r: {name: string; url: string}): Promise<SyncResult> {
  const dir = repo.commonDir
  const target = r.url === r.name ? r.url : r.name
  const track = (ref: string) => trackingRef(r.name, ref)
  const specs = [`+refs/research/*:${track('refs/research/x').replace(/x$/, '*')}`, '^refs/research/private/*', `+refs/heads/exp/proposal/*:${track('refs/heads/exp/proposal/x').replace(/x$/, '*')}`]
  const f = await runGit(['--git-dir', dir, 'fetch', '--no-write-fetch-head', '--prune', target, ...specs], {cwd: dir, allowFail: true})
  if (f.code !== 0) throw new ExpError('E_SYNC', `git fetch from ${r.name} failed: ${f.stderr.trim().split('\n').pop()}`, {hint: 'check the remote URL and your access to it'})
  const fetched: RefUpdate[] = []
  const rejected: Rejection[] = []
  const remoteRefs = new Map<string, string>()
  for (const [k, v] of await listRefs(dir, `refs/exp/remotes/${r.name.replace(/[^A-Za-z0-9._-]+/g, '_')}/`)) {
    const rest = k.split('/').slice(4).join('/')
    const ref = rest.startsWith('research/') ? `refs/${rest}` : `refs/heads/exp/${rest}`
    if (carried(ref)) remoteRefs.set(ref, v)
  }
  const isAncestor = async (a: string, b: string) => a === b || (await runGit(['--git-dir', dir, 'merge-base', '--is-ancestor', a, b], {cwd: dir, allowFail: true})).code === 0
  for (const [ref, oid] of remoteRefs) {
    const local = await readRef(dir, ref)
    if (local === oid) continue
    if (local && (await isAncestor(oid, local))) continue // we are ahead: the push sends it
    if (local && !(await isAncestor(local, oid))) {
      rejected.push({ref, direction: 'fetch', reason: 'non-fast-forward: the lane diverged (two writers used one lane name)'})
      continue
    }
    const lock = await RefLock.acquire(dir, ref)
    if (lock.old !== local) {
      await lock.release()
      rejected.push({ref, direction: 'fetch', reason: 'the local ref moved during sync; run sync again'})
      continue
    }
    await lock.commit(oid)
    fetched.push({ref, from: local, to: oid})
  }
  const after = await snapshot(repo)
  const p = await runGit(['--git-dir', dir, 'push', '--porcelain', target, ...PUSH], {cwd: dir, allowFail: true})
  const pushed: RefUpdate[] = []
  for (const line of p.stdout.toString('utf8').split('\n')) {
    const m = /^([ +*!=-])\t([^:]+):(\S+)\t(.*)$/.exec(line)
    if (!m) continue
    if (m[1] === '!') {
      if (!rejected.some(x => x.ref === m[3])) rejected.push({ref: m[3]!, direction: 'push', reason: m[4]!.replace(/^\[rejected\]\s*/, '').replace(/[()]/g, '')})
    } else if (m[1] !== '=') pushed.push({ref: m[3]!, from: remoteRefs.get(m[3]!), to: after.get(m[2]!) ?? ''})
  }
  if (p.code !== 0 && !rejected.length) throw new ExpError('E_SYNC', `git push to ${r.name} failed: ${p.stderr.trim().split('\n').pop()}`, {hint: 'check that you may push to the remote'})
  return {remote: r.name, url: r.url, transport: 'git', fetched, pushed, rejected}
}

async function syncHttp(repo: RepoPaths, r: {name: string; url: string}): Promise<SyncResult> {
  const {default: git} = await import('isomorphic-git')
  const {default: http} = await import('isomorphic-git/http/node')
  const gitdir = repo.commonDir
  const cache = {}
  const server = new Map<string, string>()
  for (const prefix of SYNC_PREFIXES) {
    for (const x of await git.listServerRefs({http, url: r.url, prefix, protocolVersion: 2})) if (carried(x.ref)) server.set(x.ref, x.oid)
  }
  const fetched: RefUpdate[] = []
  const pushed: RefUpdate[] = []
  const rejected: Rejection[] = []
  const isAncestor = async (anc: string, desc: string): Promise<boolean> => anc === desc || git.isDescendent({fs, gitdir, oid: desc, ancestor: anc, depth: -1, cache}).catch(() => false)
  for (const [ref, oid] of server) {
    const local = await readRef(gitdir, ref)
    if (local === oid) continue
    if (local && (await isAncestor(oid, local).catch(() => false))) continue // we are ahead: push will send it
    await git.fetch({fs, http, gitdir, url: r.url, remoteRef: ref, ref, singleBranch: true, tags: false, cache})
    if (local && !(await isAncestor(local, oid))) {
      rejected.push({ref, direction: 'fetch', reason: 'non-fast-forward (the lane diverged: two writers used one lane name)'})
      continue
    }
    const lock = await RefLock.acquire(gitdir, ref)
    if (lock.old !== local) {
      await lock.release()
      rejected.push({ref, direction: 'fetch', reason: 'the local ref moved during sync; run sync again'})
      continue
    }
    await lock.commit(oid)
    fetched.push({ref, from: local, to: oid})
  }
  for (const [ref, local] of await snapshot(repo)) {
    const remoteOid = server.get(ref)
    if (remoteOid === local) continue
    if (remoteOid && !(await isAncestor(remoteOid, local))) {
      if (!rejected.some(x => x.ref === ref)) rejected.push({ref, direction: 'push', reason: 'non-fast-forward (the remote has records this clone does not)'})
      continue
    }
    const res = await git.push({fs, http, gitdir, url: r.url, ref, remoteRef: ref, force: false, cache})
    if (res.ok) pushed.push({ref, from: remoteOid, to: local})
    else rejected.push({ref, direction: 'push', reason: String(res.error ?? 'rejected')})
  }
  return {remote: r.name, url: r.url, transport: 'isomorphic-git', fetched, pushed, rejected}
}
