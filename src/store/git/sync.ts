import {createHash} from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import {listRefs, readRef} from '../../git/refs.js'
import {runGit, hasNativeGit, type RunResult} from '../../git/run.js'
import {RefLock} from '../../git/lock.js'
import {readGitConfig, configValue} from '../../git/config.js'
import {loadSeenTips} from './tips.js'
import {isLaneName, REJECTED_PREFIX} from '../lanes.js'
import {staleFetchLocks} from './gc.js'
import type {RepoPaths} from '../../git/repo.js'
import {ExpError, NotFoundError, SyncError, UsageError} from '../../errors/index.js'
import {maskUrlCredentials, maskValues} from '../../redact/index.js'
import {oneLine} from '../../records/index.js'
import {httpAuth, noPrompt} from './http-auth.js'
import {heldLanes, type Held, type LaneTips, type NewMessages} from './withhold.js'

export interface RefUpdate {
  ref: string
  from?: string
  to: string
  /** a lane brought back to (or past) a tip this clone had seen before it was rewound */
  restored?: boolean
}

/**
 * A ref sync did not move. `diverged`: both sides have records the other lacks (two writers
 * used one lane name); `refused`: the remote would not take it (a hook, `receive.fsckObjects`,
 * permissions), with the remote's reason; `moved`: the local ref moved while sync ran;
 * `held`: a lane not pushed because its new records cite records of a lane that diverged
 * (withhold.ts).
 */
export interface Rejection {
  ref: string
  direction: 'fetch' | 'push'
  kind: 'diverged' | 'refused' | 'moved' | 'held'
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

/** What sync carries: public research refs, proposal and attempt branches; never refs/research/private/. */
export const SYNC_PREFIXES = ['refs/research/', 'refs/heads/exp/proposal/', 'refs/heads/exp/attempt/']
const LANES = 'refs/research/lanes/'
const PUSH = ['refs/research/*:refs/research/*', '^refs/research/private/*', 'refs/heads/exp/proposal/*:refs/heads/exp/proposal/*', 'refs/heads/exp/attempt/*:refs/heads/exp/attempt/*']

function carried(ref: string): boolean {
  return SYNC_PREFIXES.some(p => ref.startsWith(p)) && ref !== 'refs/research/private' && !ref.startsWith('refs/research/private/')
}

const RECORD_ID = /^[a-z]{2}-[0-9a-f]{24}$/

/**
 * Whether a ref under the prefixes sync carries has a shape exp makes: a lane
 * (`refs/research/lanes/<lane>`, its name checked apart), a rejected candidate's branch
 * (`refs/research/rejected/<id>`), a proposal or attempt branch. A remote's bare
 * `refs/research/private` or `refs/research/lanes` would be a file where exp keeps a folder of
 * refs: every private (or, in a clone with no lane yet, every) append then failed.
 */
function carriedShape(ref: string): boolean {
  if (ref.startsWith(LANES)) return true
  if (ref.startsWith(REJECTED_PREFIX)) return RECORD_ID.test(ref.slice(REJECTED_PREFIX.length))
  return ref.startsWith('refs/heads/exp/proposal/') || ref.startsWith('refs/heads/exp/attempt/')
}

/**
 * The branches checked out in a work tree of this repository (the main one, and each linked
 * one under worktrees/): sync does not move them, as git fetch does not (HEAD would name a
 * commit the index and the files are not at, and the next commit would undo the remote's).
 */
function checkedOut(dir: string): Set<string> {
  const out = new Set<string>()
  const heads = [path.join(dir, 'HEAD')]
  try {
    for (const w of fs.readdirSync(path.join(dir, 'worktrees'))) heads.push(path.join(dir, 'worktrees', w, 'HEAD'))
  } catch {
    // no linked work trees
  }
  for (const h of heads) {
    try {
      const m = /^ref: (refs\/heads\/\S+)/.exec(fs.readFileSync(h, 'utf8'))
      if (m) out.add(m[1]!)
    } catch {
      // gone meanwhile
    }
  }
  return out
}

/**
 * A ref name sync takes from a remote: components of letters, digits and `. _ @ + -` (what
 * lane, proposal and attempt names are made of), none empty, starting with `.`, holding `..`
 * or ending in `.lock`. A remote other than git's own (a hostile server) can advertise any
 * name: `refs/research/lanes/../../…` would be joined onto the git dir.
 */
export function syncableRef(ref: string): boolean {
  if (ref.length > 255 || ref.includes('..')) return false
  return ref.split('/').every(c => /^[A-Za-z0-9_@+-][A-Za-z0-9._@+-]*$/.test(c) && !c.endsWith('.lock') && !c.endsWith('.'))
}

async function snapshot(repo: RepoPaths): Promise<Map<string, string>> {
  const out = new Map<string, string>()
  for (const p of SYNC_PREFIXES) for (const [k, v] of await listRefs(repo.commonDir, p)) if (carried(k)) out.set(k, v)
  return out
}

/** A remote given as a path (not a URL, not `host:path`). */
function isPath(url: string): boolean {
  return !/^[a-z][a-z0-9+.-]*:\/\//i.test(url) && !/^[^/\\]+:/.test(url)
}

/**
 * The remote of a sync: the one given, else git config exp.remote, else `remote` of
 * .research/config.yaml (`configured`), else origin. The committed file only names a remote
 * of this clone's git config, never a URL or a path: a cloned repository must not choose
 * where your lanes and branches are pushed.
 */
export function resolveRemote(repo: RepoPaths, remote?: string, configured?: string): {name: string; url: string} {
  const cfg = readGitConfig(repo.commonDir)
  const mine = remote ?? configValue(cfg, 'exp.remote')
  const name = mine ?? configured ?? 'origin'
  const url = configValue(cfg, `remote.${name}.url`)
  if (url) return {name, url}
  if (remote && (remote.includes('/') || remote.includes(':') || remote.startsWith('.'))) return {name: remote, url: remote}
  if (mine === undefined && configured !== undefined) throw new NotFoundError('remote', `${name} (remote of .research/config.yaml)`, `remote in .research/config.yaml names a remote of this clone's git config (\`git remote -v\` lists them), never a URL or a path: add it with \`git remote add ${/^\w[\w.-]*$/.test(name) ? name : 'NAME'} URL\`, change the file, or pass a remote to \`exp sync\``)
  throw new NotFoundError('remote', name, 'add one with `git remote add origin URL`, or pass a path or URL to `exp sync`')
}

/** The line of git's stderr that says what went wrong (its first fatal/error line), not the advice after it. */
function gitReason(stderr: string): string {
  const lines = stderr.split('\n').map(l => l.trim()).filter(Boolean)
  const line = (lines.find(l => /^(fatal|error):/.test(l)) ?? lines.find(l => /rejected|denied|refused/i.test(l)) ?? lines[lines.length - 1] ?? 'no reason given').replace(/^(fatal|error):\s*/, '')
  // over ssh git says only "Could not read from remote repository"; ssh said why, before it
  const ssh = lines.find(l => /^ssh: |Permission denied \(|Host key verification failed|^kex_exchange_identification|Connection (refused|timed out|closed)/.test(l))
  return ssh && ssh !== line ? `${line.replace(/\.$/, '')}: ${ssh.replace(/^ssh:\s*/, '')}` : line
}

/**
 * Fetch then push the research refs in one step. Refspecs are non-forcing: a lane that
 * diverged (two writers used one lane name in two clones) is rejected and reported, never
 * overwritten, and every other lane is still synced. http(s) goes through isomorphic-git;
 * paths and ssh through the git binary.
 */
export async function sync(repo: RepoPaths, remote?: string, cwd = process.cwd(), opts: SyncOptions = {}): Promise<SyncResult> {
  let r = resolveRemote(repo, remote, opts.remote)
  if (isPath(r.url)) {
    // a path given to the command is the user's, from where they are; one in a remote's
    // configuration is the repository's, from its top (git fetch runs from the git dir here)
    const given = r.name === r.url
    const where = path.resolve(given ? cwd : (repo.workDir ?? repo.commonDir), r.url)
    if (!fs.existsSync(where)) throw new NotFoundError('remote repository', `${r.url} (no such folder)`, 'pass the path of a git repository (a bare one, usually), or a URL')
    r = given ? {name: where, url: where} : {...r, url: where}
  }
  // what is printed, named in refs and returned of the remote: its URL without credentials
  // (`https://user:token@host/…` is how CI jobs often pass a token; their logs are public)
  const remoteOf = {...r, shown: maskUrlCredentials(r.name), shownUrl: maskUrlCredentials(r.url)}
  await dropCredentialRefs(repo, remoteOf)
  try {
    const d = deadlineOf(opts.timeoutMs ?? SYNC_TIMEOUT_MS)
    const res = /^https?:\/\//.test(r.url) ? await syncHttp(repo, remoteOf, d).catch(async e => {
      // isomorphic-git cannot fetch from a remote whose HEAD names no commit; git can
      if (e instanceof HeadlessRemoteError && (await hasNativeGit())) return syncNative(repo, remoteOf, d)
      throw e
    }) : await syncNative(repo, remoteOf, d)
    return {...res, rejected: res.rejected.map(x => ({...x, reason: maskUrlCredentials(x.reason)}))}
  } catch (e) {
    if (e instanceof ExpError) e.message = maskUrlCredentials(e.message)
    throw e
  }
}

/**
 * Tracking refs an older exp named after this remote's URL, credentials and all, when it was
 * given on the command line (`refs/exp/remotes/http___user_TOKEN_host…/`; never pushed):
 * removed, now that they are named after the URL without them.
 */
async function dropCredentialRefs(repo: RepoPaths, r: Remote): Promise<void> {
  if (r.name === r.shown || !(await hasNativeGit())) return
  const dir = repo.commonDir
  const old = [...(await listRefs(dir, `refs/exp/remotes/${remoteKey(r.name)}/`)).keys()]
  if (old.length) await runGit(['--git-dir', dir, 'update-ref', '--stdin'], {cwd: dir, input: old.map(ref => `delete ${ref}\n`).join('')})
}

interface Remote {
  name: string
  url: string
  /** name and URL without credentials */
  shown: string
  shownUrl: string
}

/** Remote-tracking namespace a native fetch lands in before local refs move (never forced into lanes). */
/**
 * The folder of `refs/exp/remotes/` a remote's refs are fetched into: its name when that is a
 * plain word, else (a path such as `../hub.git`, a URL) the word made of it and a short hash
 * of it — no dots, which would make an invalid ref name (`.._hub.git`), and no two remotes in one.
 */
export function remoteKey(remote: string): string {
  if (/^[A-Za-z0-9_-]+$/.test(remote)) return remote
  return `${remote.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 60)}-${createHash('sha256').update(remote).digest('hex').slice(0, 8)}`
}

export function trackingRef(remote: string, ref: string): string {
  const name = remoteKey(remote)
  if (ref.startsWith('refs/research/')) return `refs/exp/remotes/${name}/research/${ref.slice('refs/research/'.length)}`
  if (ref.startsWith('refs/heads/exp/attempt/')) return `refs/exp/remotes/${name}/attempt/${ref.slice('refs/heads/exp/attempt/'.length)}`
  return `refs/exp/remotes/${name}/proposal/${ref.slice('refs/heads/exp/proposal/'.length)}`
}

/**
 * Move local refs to what the remote has, where that is a fast-forward: one ref at a time,
 * under its lock, compare-and-swap. A lane this clone had seen at a tip it no longer contains
 * (rewound) comes back when the remote still has it.
 */
async function fastForward(dir: string, remoteRefs: Map<string, string>, isAncestor: (a: string, b: string) => Promise<boolean>, typeOf: (oid: string) => Promise<string | undefined>, fetchObjects?: (ref: string) => Promise<void>): Promise<{fetched: RefUpdate[]; rejected: Rejection[]}> {
  const fetched: RefUpdate[] = []
  const rejected: Rejection[] = []
  const seen = loadSeenTips(dir)
  let busy: Set<string> | undefined
  for (const [ref, oid] of remoteRefs) {
    // one bad name is reported, and every other ref still syncs
    if (!syncableRef(ref)) {
      rejected.push({ref, direction: 'fetch', kind: 'refused', reason: 'the remote\'s ref has a name exp does not take (git\'s ref name rules, and a lane name of letters, digits and . _ - @ +; a hostile or broken server, or a lane another tool made): not taken'})
      continue
    }
    // a lane is one ref component with a lane's name: `lanes/x/y` would be a lane no read
    // takes (and, with a lane x here, a folder where x's ref file is)
    const lane = ref.startsWith(LANES) ? ref.slice(LANES.length) : undefined
    if (lane !== undefined && !isLaneName(lane)) {
      rejected.push({ref, direction: 'fetch', kind: 'refused', reason: `${JSON.stringify(lane.length > 60 ? `${lane.slice(0, 60)}…` : lane)} is not a lane name (one component of letters, digits and . _ - @ +, at most 100 characters): not taken`})
      continue
    }
    if (!carriedShape(ref)) {
      rejected.push({ref, direction: 'fetch', kind: 'refused', reason: 'not a ref exp makes (refs/research/lanes/<lane>, refs/research/rejected/<id>, an exp/proposal or exp/attempt branch): not taken'})
      continue
    }
    const local = await readRef(dir, ref)
    if (local === oid) continue
    if (local && (await isAncestor(oid, local))) continue // we are ahead: the push sends it
    if ((busy ??= checkedOut(dir)).has(ref)) {
      rejected.push({ref, direction: 'fetch', kind: 'refused', reason: 'the branch is checked out in a work tree here: not moved (git fetch refuses this too); commit or switch branches there, then sync again'})
      continue
    }
    await fetchObjects?.(ref)
    // a lane, attempt or proposal is a commit: a remote's ref at a blob or a tree is not taken
    // (it would be a lane every read reports as unreadable)
    const type = await typeOf(oid)
    if (type !== 'commit') {
      rejected.push({ref, direction: 'fetch', kind: 'refused', reason: `the remote's ref points at ${type ? `a ${type}` : 'an object this clone cannot read'}, not a commit: not taken`})
      continue
    }
    if (local && !(await isAncestor(local, oid))) {
      rejected.push({ref, direction: 'fetch', kind: 'diverged', reason: 'non-fast-forward: both sides have records the other lacks (two writers used one lane name)'})
      continue
    }
    let lock: RefLock
    try {
      lock = await RefLock.acquire(dir, ref)
    } catch (e) {
      // (a ref file where a folder of refs is needed, or the other way round: this ref only)
      if (!(e instanceof ExpError)) throw e
      rejected.push({ref, direction: 'fetch', kind: 'refused', reason: `cannot be written here: ${e.message}`})
      continue
    }
    if (lock.old !== local) {
      await lock.release()
      rejected.push({ref, direction: 'fetch', kind: 'moved', reason: 'the local ref moved during sync; run sync again'})
      continue
    }
    await lock.commit(oid)
    const s = seen[ref]
    const restored = !!s && s.tip !== local && (s.tip === oid || (await isAncestor(s.tip, oid))) && !(local && (await isAncestor(s.tip, local)))
    fetched.push({ref, from: local, to: oid, ...(restored ? {restored} : {})})
  }
  return {fetched, rejected}
}

/** Where a fetch puts the remote's refs: refs/exp/remotes/<remote>/…, never the lanes and branches themselves (fastForward moves those). */
function trackingSpecs(remote: string): string[] {
  const track = (ref: string) => trackingRef(remote, ref)
  return [`+refs/research/*:${track('refs/research/x').replace(/x$/, '*')}`, `+refs/heads/exp/proposal/*:${track('refs/heads/exp/proposal/x').replace(/x$/, '*')}`, `+refs/heads/exp/attempt/*:${track('refs/heads/exp/attempt/x').replace(/x$/, '*')}`]
}

async function syncNative(repo: RepoPaths, r: Remote, d: Deadline): Promise<SyncResult> {
  if (!(await hasNativeGit())) throw new UsageError(`remote ${r.shown} (${r.shownUrl}) needs the git binary (isomorphic-git only speaks http/https)`, 'install git, or use an http(s) remote')
  const dir = repo.commonDir
  // (a path is passed resolved: a remote's configured relative path is the repository's, and git runs from its git dir here)
  const target = r.url === r.name || isPath(r.url) ? r.url : r.name
  const specs = [...trackingSpecs(r.shown), '^refs/research/private/*']
  // --refmap= : the fetch refspecs a remote has configured (`exp init` adds non-forcing ones
  // into refs/research/*) must not apply to this fetch: sync moves lanes itself, one checked
  // fast-forward at a time, and a configured refspec made every later sync fail on a lane
  // that had moved on both sides
  const env = noPrompt()
  // (git's lock files a killed sync left in exp's tracking refs: the fetch would fail on each)
  for (const lock of staleFetchLocks(dir)) fs.rmSync(lock, {force: true})
  const f = await runGit(['--git-dir', dir, 'fetch', '--no-write-fetch-head', '--prune', '--refmap=', target, ...specs], {cwd: dir, env, allowFail: true, timeoutMs: d.left()})
  if (f.timedOut) throw stalled(r, d, 'fetching from')
  if (f.code !== 0) throw new SyncError(`git fetch from ${r.shown} failed: ${gitReason(f.stderr)}`, /\.lock'?: File exists/.test(f.stderr) ? 'git holds a lock of this clone\'s copy of the remote\'s refs: another exp sync here is running, or one was killed (its locks are removed by the next exp sync or exp gc once a minute old): run exp sync again' : 'check the remote URL and your access to it')
  const remoteRefs = new Map<string, string>()
  for (const [k, v] of await listRefs(dir, `refs/exp/remotes/${remoteKey(r.shown)}/`)) {
    const rest = k.split('/').slice(4).join('/')
    const ref = rest.startsWith('research/') ? `refs/${rest}` : `refs/heads/exp/${rest}`
    if (carried(ref)) remoteRefs.set(ref, v)
  }
  const isAncestor = async (a: string, b: string) => a === b || (await runGit(['--git-dir', dir, 'merge-base', '--is-ancestor', a, b], {cwd: dir, allowFail: true})).code === 0
  // the types of the objects the remote's refs name, in one cat-file: one process a ref made a
  // first sync of 3,000 lanes take ~14 s
  const types = new Map<string, string>()
  const asked = [...new Set(remoteRefs.values())].filter(oid => /^[0-9a-f]{40,64}$/.test(oid))
  if (asked.length) {
    const check = await runGit(['--git-dir', dir, 'cat-file', '--batch-check'], {cwd: dir, input: `${asked.join('\n')}\n`, allowFail: true})
    for (const line of check.stdout.toString('utf8').split('\n')) {
      const [oid, type] = line.split(' ')
      if (oid && type && type !== 'missing') types.set(oid, type)
    }
  }
  const typeOf = async (oid: string) => {
    if (types.has(oid)) return types.get(oid)
    const t = await runGit(['--git-dir', dir, 'cat-file', '-t', oid], {cwd: dir, allowFail: true})
    return t.code === 0 ? t.stdout.toString('utf8').trim() : undefined
  }
  const {fetched, rejected} = await fastForward(dir, remoteRefs, isAncestor, typeOf)
  const after = await snapshot(repo)
  const newMessages = async (from: string | undefined, to: string) => {
    const log = await runGit(['--git-dir', dir, 'log', '--format=%x00%B', to, ...(from ? [`^${from}`] : [])], {cwd: dir})
    return log.stdout.toString('utf8').split('\0').slice(1)
  }
  const held = await holdBack(rejected, remoteRefs, after, isAncestor, newMessages)
  if (d.left() <= 0) throw stalled(r, d, 'pushing to', fetched.length)
  // nothing of exp's here yet (a first sync of two new repositories): git push fails with "No
  // refs in common and none specified" when no ref matches its refspecs
  if (![...after.keys()].some(ref => !held.some(h => h.ref === ref))) return {remote: r.shown, url: r.shownUrl, transport: 'git', fetched, pushed: [], rejected}
  const push = async (specs: string[]) => {
    const p = await runGit(['--git-dir', dir, 'push', '--porcelain', target, ...specs], {cwd: dir, env, allowFail: true, timeoutMs: d.left()})
    if (p.timedOut) throw stalled(r, d, 'pushing to', fetched.length)
    return p
  }
  const pushed: RefUpdate[] = []
  /** what one push did to each ref (its porcelain lines); the refs it refused as a whole pack, to push again one by one */
  const take = async (p: RunResult): Promise<{local: string; ref: string}[]> => {
    const unpacked: {local: string; ref: string}[] = []
    for (const line of p.stdout.toString('utf8').split('\n')) {
      const m = /^([ +*!=-])\t([^:]+):(\S+)\t(.*)$/.exec(line)
      if (!m) continue
      if (m[1] === '!') {
        if (rejected.some(x => x.ref === m[3])) continue
        if (/unpacker error|unpack-objects abnormal exit|index-pack abnormal exit/.test(m[4]!)) unpacked.push({local: m[2]!, ref: m[3]!})
        const x = pushRejection(m[3]!, m[4]!, p.stderr)
        // the remote's ref moved while sync ran (another sync of the same lane at the same
        // time), not two writers on one lane: it was behind this clone's when sync fetched, or
        // the remote found it moved under the push ("cannot lock ref … is at … but expected …")
        const was = remoteRefs.get(m[3]!)
        const local = after.get(m[2]!)
        const underPush = x.kind === 'refused' && /cannot lock ref|is at [0-9a-f]{7,} but expected/.test(x.reason)
        if (underPush || (x.kind === 'diverged' && local && (!was || (await isAncestor(was, local))))) rejected.push({ref: m[3]!, direction: 'push', kind: 'moved', reason: 'the remote\'s ref moved while sync ran (another exp sync at the same time?): run sync again'})
        else rejected.push(x)
      } else if (m[1] !== '=') pushed.push({ref: m[3]!, from: remoteRefs.get(m[3]!), to: after.get(m[2]!) ?? ''})
    }
    return unpacked
  }
  const p = await push([...PUSH, ...held.map(h => `^${h.ref}`)])
  const unpacked = await take(p)
  // a remote that checks what it receives (receive.fsckObjects) refuses the whole pack for one
  // bad object: one lane holding a commit it refuses (fetched from a laxer remote) kept every
  // other lane from being pushed, on every sync. Those refs are pushed again one at a time, so
  // each is refused or taken for what it carries
  if (unpacked.length > 1) {
    for (const u of unpacked) {
      const i = rejected.findIndex(x => x.ref === u.ref)
      if (i >= 0) rejected.splice(i, 1)
      await take(await push([`${u.local}:${u.ref}`]))
    }
  }
  if (p.code !== 0 && !rejected.length && !pushed.length) throw new SyncError(`git push to ${r.shown} failed: ${gitReason(p.stderr)}`, 'check that you may push to the remote')
  return {remote: r.shown, url: r.shownUrl, transport: 'git', fetched, pushed, rejected}
}

/**
 * Lanes whose new records cite records of a lane that diverged (withhold.ts): added to
 * `rejected` as held back, and returned, for the push to leave out.
 */
async function holdBack(rejected: Rejection[], remoteRefs: ReadonlyMap<string, string>, local: ReadonlyMap<string, string>, isAncestor: (a: string, b: string) => Promise<boolean>, newMessages: NewMessages): Promise<Held[]> {
  const stuck = rejected.filter(x => x.kind === 'diverged' && x.ref.startsWith(LANES) && local.has(x.ref)).map(x => ({ref: x.ref, remote: remoteRefs.get(x.ref), local: local.get(x.ref)!}))
  if (!stuck.length) return []
  const pushing: LaneTips[] = []
  for (const [ref, tip] of local) {
    const remote = remoteRefs.get(ref)
    if (!ref.startsWith(LANES) || remote === tip || stuck.some(s => s.ref === ref) || rejected.some(x => x.ref === ref)) continue
    if (remote && !(await isAncestor(remote, tip))) continue
    pushing.push({ref, remote, local: tip})
  }
  const held = await heldLanes(stuck, pushing, newMessages)
  for (const h of held) rejected.push({ref: h.ref, direction: 'push', kind: 'held', reason: h.reason})
  return held
}

const PUSH_DIVERGED = 'non-fast-forward: the remote has records this clone does not (two writers used one lane name)'

/** A push the remote refused, with its reason and the first `error:`/`fatal:` line of what it said while taking it (e.g. an fsck error). */
function pushRefusal(ref: string, reason: string, said: readonly string[]): Rejection {
  // (the remote's words as words: its terminal escapes taken out, then one line of plain text, as a commit subject is)
  // eslint-disable-next-line no-control-regex -- an escape sequence is what is taken out
  const lines = said.map(l => oneLine(l.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, '')).replace(/^remote: /, '')).filter(Boolean)
  // an fsck error, else what a hook printed (its reason: "pre-receive hook declined" alone says none), cut short
  const error = lines.find(l => /^(error|fatal):/.test(l))
  const own = lines.filter(l => !/^(error|fatal):/.test(l))
  const hook = /hook declined/.test(reason) && own.length ? own.slice(0, 3).join('; ') : undefined
  const said1 = hook ?? error
  const detail = said1 && said1.length > 300 ? `${said1.slice(0, 300)}…` : said1
  return {ref, direction: 'push', kind: 'refused', reason: `the remote refused it: ${reason}${detail && !reason.includes(detail) ? ` (${detail})` : ''}`}
}

/** `[rejected] (non-fast-forward)` is a divergence; `[remote rejected] (reason)` a refusal, with the remote's words. */
function pushRejection(ref: string, summary: string, stderr: string): Rejection {
  const reason = /\(([^)]*)\)/.exec(summary)?.[1] ?? summary
  // the remote's own explanation is on stderr, prefixed `remote:`
  if (/^\[remote rejected\]/.test(summary) || !/non-fast-forward|fetch first|stale info/.test(reason)) return pushRefusal(ref, reason, stderr.split('\n').filter(l => /^\s*remote: /.test(l)))
  return {ref, direction: 'push', kind: 'diverged', reason: PUSH_DIVERGED}
}

async function syncHttp(repo: RepoPaths, r: Remote, d: Deadline): Promise<SyncResult> {
  const {default: git} = await import('isomorphic-git')
  const {default: plain} = await import('isomorphic-git/http/node')
  // every request ends at the deadline (node's http client takes the signal)
  const http: typeof plain = {request: req => plain.request({...req, signal: d.signal})}
  const gitdir = repo.commonDir
  const cache = {}
  const server = new Map<string, string>()
  // the credentials git would use (http.extraHeader, credential helpers): src/store/git/http-auth.ts
  const creds = await httpAuth(repo, r.url)
  // a copy of the headers per call: isomorphic-git adds to the object it is given (a
  // `Git-Protocol: version=2` from listing the refs broke every later push's discovery)
  const auth = () => ({...creds, headers: {...creds.headers}})
  try {
    for (const prefix of SYNC_PREFIXES) {
      for (const x of await git.listServerRefs({http, ...auth(), url: r.url, prefix, protocolVersion: 2})) if (carried(x.ref)) server.set(x.ref, x.oid)
    }
  } catch (e) {
    if (d.signal.aborted) throw stalled(r, d, 'listing the refs of')
    throw unreachable(r, e as Error & {code?: string; data?: {statusCode?: number; statusMessage?: string}}, undefined, creds.secrets?.())
  }
  const isAncestor = async (anc: string, desc: string): Promise<boolean> => anc === desc || git.isDescendent({fs, gitdir, oid: desc, ancestor: anc, depth: -1, cache}).catch(() => false)
  // isomorphic-git writes what it fetched where the fetch refspecs of the remote's config say:
  // those `exp init` configures map refs/research/* onto the lanes themselves, and a fetch
  // moved a local lane to the remote's tip unchecked — before the objects had arrived when the
  // fetch then failed. It is given a remote of sync's own whose refspecs land in the tracking
  // namespace only; fastForward moves the lanes, as for the git binary's --refmap=
  const files = syncFs(gitdir, SYNC_REMOTE, trackingSpecs(r.shown))
  const fetchObjects = async (ref: string) => {
    try {
      await git.fetch({fs: files, http, ...auth(), gitdir, url: r.url, remote: SYNC_REMOTE, remoteRef: ref, ref, singleBranch: true, tags: false, cache})
    } catch (e) {
      // the remote went away, or answered with something that is not a pack: what was fetched
      // before stands; the tracking ref isomorphic-git wrote before the pack came goes (it names
      // an object this clone does not have, which every `git for-each-ref` would then fail on)
      await git.deleteRef({fs, gitdir, ref: trackingRef(r.shown, ref)}).catch(() => undefined)
      if (d.signal.aborted) throw stalled(r, d, `fetching ${ref} from`)
      throw unreachable(r, e as Error & {code?: string; data?: {statusCode?: number}}, `fetching ${ref} from`, creds.secrets?.())
    }
  }
  const typeOf = async (oid: string) => (await git.readObject({fs, gitdir, oid, format: 'content', cache}).catch(() => undefined))?.type
  const {fetched, rejected} = await fastForward(gitdir, server, isAncestor, typeOf, fetchObjects)
  const pushed: RefUpdate[] = []
  const after = await snapshot(repo)
  const newMessages = async (from: string | undefined, to: string) => {
    const out: string[] = []
    for (const c of await git.log({fs, gitdir, ref: to, cache})) {
      if (c.oid === from) break
      out.push(c.commit.message)
    }
    return out
  }
  const held = new Set((await holdBack(rejected, server, after, isAncestor, newMessages)).map(h => h.ref))
  for (const [ref, local] of after) {
    const remoteOid = server.get(ref)
    if (remoteOid === local || held.has(ref)) continue
    if (remoteOid && !(await isAncestor(remoteOid, local))) {
      if (!rejected.some(x => x.ref === ref)) rejected.push({ref, direction: 'push', kind: 'diverged', reason: PUSH_DIVERGED})
      continue
    }
    // what the remote says while it takes the push (`remote: error: …` from git, a hook's words)
    const said: string[] = []
    const refusal = (why: string | undefined) => pushRefusal(ref, why || 'rejected', said.flatMap(m => m.split('\n')))
    if (d.signal.aborted) throw stalled(r, d, 'pushing to', fetched.length)
    try {
      const res = await git.push({fs, http, ...auth(), gitdir, url: r.url, remote: SYNC_REMOTE, ref, remoteRef: ref, force: false, cache, onMessage: m => void said.push(m)})
      if (res.ok) pushed.push({ref, from: remoteOid, to: local})
      else rejected.push(refusal(res.refs[ref]?.error || res.error || undefined))
    } catch (e) {
      if (d.signal.aborted) throw stalled(r, d, `pushing ${ref} to`, fetched.length)
      // a GitPushError carries the remote's report: the reason for this ref, and the unpack status
      const report = (e as {data?: {result?: {error?: string; refs?: Record<string, {error?: string}>}}}).data?.result
      rejected.push(refusal(report?.refs?.[ref]?.error || report?.error || (e as Error).message.split('\n')[0]))
    } finally {
      // isomorphic-git records what it pushed as refs/remotes/<remote>/<ref> (for a lane,
      // refs/remotes/origin/refs/research/lanes/<lane>, which `git branch -r` then lists): not kept
      await git.deleteRef({fs, gitdir, ref: `refs/remotes/${SYNC_REMOTE}/${ref.replace(/^refs\/heads\//, '')}`}).catch(() => undefined)
    }
  }
  return {remote: r.shown, url: r.shownUrl, transport: 'isomorphic-git', fetched, pushed, rejected}
}

export interface SyncOptions {
  /** the whole sync, in ms (default SYNC_TIMEOUT_MS; Infinity: no limit) */
  timeoutMs?: number
  /** `remote` of .research/config.yaml: a remote's name, used when none is given and git config exp.remote is not set */
  remote?: string
}

/** How long a sync may take by default: 15 minutes. */
export const SYNC_TIMEOUT_MS = 15 * 60_000

/** When a sync must be done: its requests and git's runs end then. */
interface Deadline {
  ms: number
  signal: AbortSignal
  /** ms left (Infinity without a limit) */
  left(): number
}

function deadlineOf(ms: number): Deadline {
  const end = Date.now() + ms
  // (a signal that never aborts when there is no limit)
  const signal = Number.isFinite(ms) ? AbortSignal.timeout(Math.max(0, ms)) : new AbortController().signal
  return {ms, signal, left: () => (Number.isFinite(ms) ? Math.max(0, end - Date.now()) : Infinity)}
}

/**
 * A sync stopped at its deadline: a remote that never answered (a connection that hangs,
 * an ssh command that waits), took the connection and then said nothing, or answered a byte
 * at a time. What was fetched before stays (each lane moved only once its
 * objects were in); git was stopped with SIGTERM, which removes its locks.
 */
function stalled(r: Remote, d: Deadline, doing: string, fetched?: number): SyncError {
  const kept = fetched ? ` (the ${fetched} ref${fetched === 1 ? '' : 's'} fetched before it stay fetched)` : ''
  return new SyncError(`${doing} ${r.shown} did not finish within ${Math.round(d.ms / 1000)} s: sync stopped${kept}`, 'the remote (or the network on the way to it) did not answer in time: check that it is reachable, or allow more time with --timeout SECONDS (0: no limit); nothing recorded was lost, and the next exp sync starts over')
}

const NETWORK: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused (nothing listens there)',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved now (no network, or DNS is down)',
  ETIMEDOUT: 'the connection timed out',
  ECONNRESET: 'the connection was reset',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
}

/** A remote whose HEAD names no commit: isomorphic-git cannot fetch from it (sync then uses the git binary, when there is one). */
class HeadlessRemoteError extends SyncError {
  constructor(where: string) {
    super(`${where} has no HEAD: its default branch has no commit (a new repository, or one whose default branch was never pushed), and without a git binary exp cannot fetch from it over http(s)`, 'push a branch to it first (git push origin main), then sync again; nothing was changed here')
  }
}

/** The remote name sync's http fetches are made under (in no config: syncFs adds it to what isomorphic-git reads). */
const SYNC_REMOTE = 'exp-sync'

/**
 * The repository's files as isomorphic-git sees them during a sync: as they are, except that
 * its config also has `[remote "<remote>"]` with these fetch refspecs (nothing is written).
 */
function syncFs(gitdir: string, remote: string, specs: readonly string[]): {promises: typeof fs.promises} {
  const config = path.resolve(gitdir, 'config')
  const section = `\n[remote "${remote}"]\n${specs.map(x => `\tfetch = ${x}\n`).join('')}`
  const p = fs.promises
  const readFile = (async (file: Parameters<typeof p.readFile>[0], options?: Parameters<typeof p.readFile>[1]) => {
    const data = await p.readFile(file, options)
    if (typeof file !== 'string' || path.resolve(file) !== config) return data
    return typeof data === 'string' ? data + section : Buffer.concat([data, Buffer.from(section)])
  }) as typeof p.readFile
  return {promises: {...p, readFile}}
}

/** Why an http(s) remote could not be listed, as exp says it (its URL without credentials). */
function unreachable(r: Remote, e: Error & {code?: string; data?: {statusCode?: number; statusMessage?: string}}, doing = 'cannot list the refs of', secrets: readonly string[] = []): SyncError {
  const where = `${r.shown}${r.shown === r.shownUrl ? '' : ` (${r.shownUrl})`}`
  if (e.code === 'NotFoundError' && (e as {data?: {what?: string}}).data?.what === 'HEAD') return new HeadlessRemoteError(where)
  const status = e.data?.statusCode
  const creds = 'give git credentials for it as for git fetch (a credential helper, `git config credential.helper`, or `http.extraHeader`), or a token in the URL (https://USER:TOKEN@host/…, which exp never prints)'
  if (e.code === 'UserCanceledError') return new SyncError(`${where} wants credentials (HTTP 401): none were found, or they were refused`, creds)
  const said = maskValues(e.data?.statusMessage ?? '', secrets)
  if (status === 401 || status === 403) return new SyncError(`${where} refused access: HTTP ${status} ${said}`.trim(), `check your access to the remote: ${creds}`)
  if (status === 404) return new SyncError(`${where} has no repository there: HTTP 404`, 'check the remote URL (git remote -v)')
  if (status) return new SyncError(`${where} answered HTTP ${status} ${said}`.trim(), 'check the remote URL (git remote -v), or try again later')
  const net = e.code ? NETWORK[e.code] : undefined
  if (net) return new SyncError(`cannot reach ${where}: ${net}`, 'check the remote URL (git remote -v) and the network; exp works offline, and syncs once the remote is reachable')
  // (what the server said back: it may echo the credentials it was sent)
  return new SyncError(`${doing} ${where}: ${maskValues(maskUrlCredentials(e.message.split('\n')[0] ?? ''), secrets)}`, 'check that the URL is a git repository served over smart HTTP (git remote -v)')
}
