import {spawn} from 'node:child_process'
import {existsSync, realpathSync, statSync} from 'node:fs'
import {accessSync, constants as fsConstants} from 'node:fs'
import {cp, mkdir, mkdtemp, rm} from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import {SandboxError} from '../../errors/index.js'
import {within} from '../../paths.js'
import {splitCommandLine} from './argv.js'

/**
 * Where a `command:` agent runs (docs/agent-protocol.md): never in the repository. Every
 * episode starts in a new empty folder with a scrubbed environment (PATH, a temporary HOME
 * and TMPDIR, and only the variables the spec names with `--env NAME`). Files the spec
 * names inside the repository are copied out first. Where Linux allows it, the agent also
 * runs in its own mount and PID namespaces in which the repository (every work tree of it,
 * src/cli/run-context.ts repositoryHidden), its .git, the key file, the scenarios in use and
 * the package's own scenarios are empty: it cannot read them by any path, nor reach exp's
 * process through /proc.
 */
export type Isolation = 'namespace' | 'userns' | 'bwrap' | 'none'

export interface SandboxOptions {
  /** the repository's work tree: relative paths of the spec resolve here; hidden from the agent */
  root?: string
  /** more paths the agent must not see (the git dir, a key file, ...) */
  hide?: readonly string[]
  /** the environment the named variables are taken from (default: exp's own) */
  env?: NodeJS.ProcessEnv
  /** auto (default): the strongest isolation this machine offers */
  isolation?: 'auto' | Isolation
}

export interface Prepared {
  program: string
  args: string[]
  /** where copied agent files live, removed by close() */
  files?: string
}

/** `--env NAME` (or `--env=NAME`) words at the start of a command line: variables passed through. */
export function splitEnvWords(words: readonly string[]): {pass: string[]; rest: string[]} {
  const pass: string[] = []
  let i = 0
  for (; i < words.length; i++) {
    const w = words[i]!
    if (w === '--env' && i + 1 < words.length) pass.push(words[++i]!)
    else if (w.startsWith('--env=')) pass.push(w.slice(6))
    else break
  }
  for (const n of pass) if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(n)) throw new SandboxError(`--env ${n}: not a variable name`, 'name variables to pass to the agent, e.g. command:--env OPENAI_API_KEY python3 agent.py')
  return {pass, rest: words.slice(i)}
}

/**
 * The values a `command:` spec hands its agent with `--env NAME`: masked wherever the run
 * writes (traces, events), whatever the variable is called — a value is passed because the
 * agent needs it, and `GH_PAT` or `DB_PASS` matched no credential name.
 */
export function passedSecrets(spec: string, env: NodeJS.ProcessEnv = process.env): string[] {
  if (!spec.startsWith('command:')) return []
  const words = splitCommandLine(spec.slice('command:'.length)) ?? []
  let pass: string[]
  try {
    pass = splitEnvWords(words).pass
  } catch {
    return []
  }
  return pass.map(n => env[n]).filter((v): v is string => !!v)
}

/**
 * Resolve the spec's words against the repository and copy what it names inside a hidden
 * folder to a folder of the agent's own (a file's whole folder when it is not the root,
 * so a script finds its modules).
 */
export async function prepareLaunch(program: string, args: readonly string[], o: SandboxOptions): Promise<Prepared> {
  const root = o.root ? path.resolve(o.root) : undefined
  // the longest first: a file is copied relative to the innermost hidden folder that holds it
  const hidden = [...(root ? [root] : []), ...(o.hide ?? []), ...(root || o.hide?.length ? scratchFolders() : [])].map(h => path.resolve(h)).sort((a, b) => b.length - a.length)
  let files: string | undefined
  const words = [program, ...args]
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!
    if (w.startsWith('-') || (!root && !path.isAbsolute(w))) continue
    const abs = path.isAbsolute(w) ? w : path.resolve(root!, w)
    if (!existsSync(abs)) continue
    const under = hidden.find(h => within(abs, h))
    if (!under) {
      words[i] = abs
      continue
    }
    files ??= await mkdtemp(path.join(os.tmpdir(), 'exp-agent-files-'))
    const rel = path.relative(under, abs)
    const dir = path.dirname(rel)
    const copyFrom = statSync(abs).isDirectory() || dir === '.' ? abs : path.join(under, dir)
    const copyTo = path.join(files, path.relative(under, copyFrom))
    if (!existsSync(copyTo)) await cp(copyFrom, copyTo, {recursive: true, filter: src => !within(src, path.join(under, '.git'))})
    words[i] = path.join(files, rel)
  }
  return {program: words[0]!, args: words.slice(1), ...(files ? {files} : {})}
}

let probe: Promise<Isolation> | undefined
let deathProbe: Promise<boolean> | undefined

/**
 * Whether `setpriv --pdeathsig KILL` works here (util-linux 2.33 and later, Linux): the wrapper
 * of a namespace sandbox is started under it, so that it is killed when exp dies — and with it,
 * through `--kill-child`, every process of the namespace (probed once per process).
 */
export function parentDeathSignal(): Promise<boolean> {
  if (process.platform !== 'linux') return Promise.resolve(false)
  deathProbe ??= runs('setpriv', ['--pdeathsig', 'KILL', '--', 'true'])
  return deathProbe
}

function runs(cmd: string, args: string[]): Promise<boolean> {
  return new Promise(resolve => {
    const c = spawn(cmd, args, {stdio: 'ignore'})
    c.on('error', () => resolve(false))
    c.on('close', code => resolve(code === 0))
  })
}

/** The strongest isolation this machine offers (probed once per process). */
export function detectIsolation(): Promise<Isolation> {
  if (process.platform !== 'linux') return Promise.resolve('none')
  probe ??= (async () => {
    // (the sandbox drops every capability before the program starts: setpriv, util-linux as unshare)
    const drop = ['setpriv', '--bounding-set=-all', '--inh-caps=-all', '--no-new-privs', 'true']
    if (await runs('unshare', ['--mount', '--pid', '--uts', '--ipc', '--fork', '--mount-proc', '--propagation', 'private', ...drop])) return 'namespace'
    if (await runs('unshare', ['--user', '--map-root-user', '--mount', '--pid', '--uts', '--ipc', '--fork', '--mount-proc', '--propagation', 'private', ...drop])) return 'userns'
    if (await runs('bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', '--unshare-pid', '--unshare-uts', '--unshare-ipc', '--proc', '/proc', '--ro-bind', '/proc/sys', '/proc/sys', 'true'])) return 'bwrap'
    return 'none'
  })()
  return probe
}

/**
 * Run inside the new mount namespace as `sh -c HIDE_SCRIPT exp-sandbox CWD MODE KEEP... -- HIDE... --
 * ALSO... -- PROGRAM ARGS`: every mount is first made read-only (but the new /proc), so that
 * each one made after it is writable, or read-only, as it is made. The folders to keep (the
 * episode's own, the agent's files), each after its mode (`rw`, or `ro`: read-only to the
 * program), are set aside on a private tmpfs over /dev/shm, every hidden folder becomes an
 * empty tmpfs and every hidden file /dev/null, then the kept folders are moved back to where
 * they were, writable or read-only by their mode.
 * Scratch folders (/tmp, /var/tmp) are hidden whole, so walking up from its folder shows an
 * agent nothing but itself. What the first step left writable (ALSO: the real paths of the
 * kept and hidden ones, which mountinfo names) is then made read-only one mount at a time,
 * and the program starts without capabilities.
 * No process is started a folder or a mount: the sandbox starts for every episode, and each
 * process costs ~5 ms (one `mount --all` in place of one `mount` a mount: ~20 processes in
 * place of ~35 for an evaluator's run on a machine of 20 mounts).
 * (`mount -n`: nothing is written to /run/mount/utab, the host's, and a move on a read-only
 * root does not fail for the want of it)
 */
const HIDE_SCRIPT = [
  'fail() { echo "exp sandbox: $1" >&2; exit 97; }',
  'here="$1"; shift',
  // every mount read-only, by path, in one process (util-linux: `--all` with `remount` goes over
  // the mount table; what it cannot do is left to the loop below, which says so when it must)
  'mount -n --all -o remount,bind,ro -t noproc 2>/dev/null',
  'mount -n -t tmpfs -o size=64k,mode=0700 exp-stage /dev/shm || fail "cannot mount a private /dev/shm"',
  // (the kept and hidden paths, one a line: the mounts left as they are below)
  'nl="\n"; left="$nl"',
  'n=0; while [ "$1" != "--" ]; do n=$((n+1)); eval "mode_$n=\\$1"; shift; mkdir "/dev/shm/$n" && mount -n --bind "$1" "/dev/shm/$n" || fail "cannot set aside $1"; eval "keep_$n=\\$1"; left="$left$1$nl"; shift; done; shift',
  'while [ "$1" != "--" ]; do left="$left$1$nl"; if [ -d "$1" ]; then mount -n -t tmpfs -o size=1m,mode=1777 exp-hidden "$1" || fail "cannot hide $1"; elif [ -e "$1" ]; then mount -n --bind /dev/null "$1" || fail "cannot hide $1"; fi; shift; done; shift',
  'while [ "$1" != "--" ]; do left="$left$1$nl"; shift; done; shift',
  // (a kept folder is bound from a read-only mount: it is read-only until made writable)
  'i=0; while [ "$i" -lt "$n" ]; do i=$((i+1)); eval "k=\\$keep_$i; m=\\$mode_$i"; { [ -d "$k" ] || mkdir -p "$k"; } && mount -n --move "/dev/shm/$i" "$k" || fail "cannot restore $k"; if [ "$m" = ro ]; then mount -n -o remount,bind,ro "$k" || fail "cannot make $k read-only"; else mount -n -o remount,bind,rw "$k" || fail "cannot make $k writable"; fi; done',
  // every other mount read-only (the user's home and git config, /usr, /etc: what a process
  // outside the sandbox later reads or runs; /sys and /dev, which are the host's), but the kept
  // folders, the empty hidden ones, /dev/shm (the stage, a private tmpfs), /dev/pts and the
  // new /proc (a mount under a hidden folder is out of sight, and the top one at a hidden path
  // is the empty tmpfs). A device written through a read-only mount still works (/dev/null).
  // no terminal of the host's: its /dev/pts devices (the user's terminal among them, writable
  // by its owner and by root) give way to an empty folder, so the program can neither write to
  // the terminal exp runs in (past its redaction and escaping) nor read what is typed there
  'if [ -d /dev/pts ]; then mount -n -t tmpfs -o ro,size=4k,mode=0755 exp-nopts /dev/pts || fail "cannot hide /dev/pts"; fi',
  // (each mount's source, path and whether it is still writable: fields 6 and 9 of mountinfo)
  'awk \'{ for (i = 7; i <= NF; i++) if ($i == "-") { print $(i + 2), $5, ("," $6 ",") ~ /,ro,/ ? "ro" : "rw"; break } }\' /proc/self/mountinfo > /dev/shm/mounts || fail "cannot list the mounts"',
  // (the host's own /sys, /dev and kernel settings matter where the program is the host's root:
  // in the first user namespace, whose map is the whole range. In a user namespace of its own
  // the program's root is an unprivileged user outside, and a mount that cannot be made
  // read-only there is left as it is)
  'strict=; read -r _ _ n < /proc/self/uid_map && [ "$n" = 4294967295 ] && strict=1',
  'while read -r src mp w; do [ "$w" = rw ] || continue; case "$src" in exp-hidden|exp-stage) continue;; esac; case "$mp" in /proc|/proc/*|/dev/pts|/dev/shm) continue;; esac; case "$mp" in *\\\\*) mp=$(printf "%b" "$mp");; esac; case "$left" in *"$nl$mp$nl"*) continue;; esac; [ -e "$mp" ] || continue; case "$mp" in /sys|/sys/*|/dev|/dev/*) mount -n -o remount,bind,ro "$mp" 2>/dev/null || [ -z "$strict" ] || fail "cannot make $mp read-only"; continue;; esac; mount -n -o remount,bind,ro "$mp" || fail "cannot make $mp read-only"; done < /dev/shm/mounts',
  // and the host's settings in the new /proc (as container runtimes do): a program that is root
  // without capabilities could write kernel.core_pattern (a program the kernel then runs as
  // root outside every namespace), sysrq, IRQ affinities (`-o bind,ro`: the bind and its
  // remount by one process, util-linux 2.27 and later)
  'for p in /proc/sys /proc/sysrq-trigger /proc/irq /proc/bus /proc/fs; do [ -e "$p" ] || continue; mount -n -o bind,ro "$p" "$p" 2>/dev/null || [ -z "$strict" ] || fail "cannot make $p read-only"; done',
  // (the folder it starts in was entered before: entered again by the path it was given — the
  // kept mount is there, also when a link is on the way — it is the kept, writable one)
  'cd "$here" || fail "cannot enter $here"',
  // and no capability left: as root in the namespace the program could otherwise unmount what hides the repository
  'exec setpriv --bounding-set=-all --inh-caps=-all --no-new-privs -- "$@"',
].join('\n')

/** The real paths of `paths` that differ from them (a link on the way): mountinfo names mounts by those. */
function realPaths(paths: readonly string[]): string[] {
  const out: string[] = []
  for (const p of paths) {
    try {
      const r = realpathSync(p)
      if (r !== p) out.push(r)
    } catch {
      // not there: nothing is mounted at it
    }
  }
  return out
}

/** Folders where copies of repositories (and of the package) are usually found: hidden whole when isolated. */
function scratchFolders(): string[] {
  return [os.tmpdir(), '/tmp', '/var/tmp'].filter(d => existsSync(d))
}

export interface EpisodeSandbox {
  cwd: string
  env: NodeJS.ProcessEnv
  program: string
  args: string[]
  isolation: Isolation
  cleanup(): Promise<void>
}

/** One episode's empty folder, environment and (when isolated) the wrapper that hides the repository. */
export async function episodeSandbox(launch: Prepared, pass: readonly string[], o: SandboxOptions): Promise<EpisodeSandbox> {
  const scratch = o.root || o.hide?.length ? scratchFolders() : []
  const isolation = o.isolation && o.isolation !== 'auto' ? o.isolation : await detectIsolation()
  const base = await mkdtemp(path.join(os.tmpdir(), 'exp-agent-'))
  const cwd = path.join(base, 'work')
  const home = path.join(base, 'home')
  await Promise.all([cwd, home, path.join(base, 'tmp')].map(d => mkdir(d, {recursive: true})))
  const from = o.env ?? process.env
  const env: NodeJS.ProcessEnv = {PATH: from.PATH ?? '/usr/local/bin:/usr/bin:/bin', HOME: home, TMPDIR: path.join(base, 'tmp')}
  for (const n of pass) if (from[n] !== undefined) env[n] = from[n]
  const hide = [...new Set([...(o.root ? [o.root] : []), ...(o.hide ?? []), ...scratch].map(h => path.resolve(h)))].filter(h => existsSync(h)).sort((a, b) => a.length - b.length)
  const keep = [base, ...(launch.files ? [launch.files] : [])]
  // (the agent's files, copied once for every episode of the run, are read-only to it: an
  // episode that wrote there passed what it saw to the episodes after it, or changed the agent
  // they ran)
  const wrapped = wrapHidden(launch.program, launch.args, {cwd, env, keep, readOnly: launch.files ? [launch.files] : [], hide, isolation, pdeathsig: await parentDeathSignal()})
  return {cwd, env, ...wrapped, cleanup: () => rm(base, {recursive: true, force: true})}
}

/**
 * `program args` wrapped so that, in new mount and PID namespaces (or bwrap), every path of
 * `hide` is empty and every path of `keep` (inside hidden ones) is still there; as it is when
 * the machine offers no isolation, or nothing is to be hidden.
 */
function wrapHidden(program: string, args: readonly string[], o: {cwd: string; env: NodeJS.ProcessEnv; keep: readonly string[]; readOnly?: readonly string[]; hide: readonly string[]; isolation: Isolation; pdeathsig?: boolean}): {program: string; args: string[]; isolation: Isolation} {
  // a program that cannot be found fails to start as itself (not as the wrapper's exit 127)
  const found = findProgram(program, o.env.PATH ?? '', o.cwd)
  const {keep, hide, isolation} = o
  if (found && hide.length && (isolation === 'namespace' || isolation === 'userns')) {
    const user = isolation === 'userns' ? ['--user', '--map-root-user'] : []
    // (its own hostname and System V IPC too: `kernel.hostname` names the default lane, user@host)
    // (--kill-child: when unshare ends, killed as exp ends an episode, its child, the program as
    // PID 1 of the new namespace, is killed with it, and every process in that namespace: one
    // that left the process group exp signals, setsid() and SIGTERM ignored, outlived exp)
    // (and unshare itself is killed when exp dies, SIGKILLed too, as bwrap is by --die-with-parent:
    // started by setpriv --pdeathsig, which exec()s it, it gets SIGKILL when exp's thread that
    // spawned it ends. Before, the sandbox and the agent of an exp that was SIGKILLed ran on,
    // reparented to init)
    const unshare = ['unshare', ...user, '--mount', '--pid', '--uts', '--ipc', '--fork', '--kill-child', '--mount-proc', '--propagation', 'private', '--', '/bin/sh', '-c', HIDE_SCRIPT, 'exp-sandbox', o.cwd, ...keep.flatMap(k => [o.readOnly?.includes(k) ? 'ro' : 'rw', k]), '--', ...hide, '--', ...realPaths([...keep, ...hide]), '--', program, ...args]
    return o.pdeathsig ? {program: 'setpriv', args: ['--pdeathsig', 'KILL', '--', ...unshare], isolation} : {program: unshare[0]!, args: unshare.slice(1), isolation}
  }
  if (found && hide.length && isolation === 'bwrap') {
    const masks = hide.flatMap(h => (statSync(h).isDirectory() ? ['--tmpfs', h] : ['--ro-bind', '/dev/null', h]))
    // (the whole file system read-only but the kept folders and the empty hidden ones, as the namespace script does)
    // (a /dev of its own with the usual devices, not the host's; the new /proc's host settings read-only)
    return {program: 'bwrap', args: ['--ro-bind', '/', '/', '--dev', '/dev', '--unshare-pid', '--unshare-uts', '--unshare-ipc', '--proc', '/proc', '--ro-bind', '/proc/sys', '/proc/sys', ...masks, ...keep.flatMap(k => [o.readOnly?.includes(k) ? '--ro-bind' : '--bind', k, k]), '--chdir', o.cwd, '--die-with-parent', '--', program, ...args], isolation}
  }
  return {program, args: [...args], isolation: 'none'}
}

export interface EvaluatorSandbox {
  env: NodeJS.ProcessEnv
  program: string
  args: string[]
  isolation: Isolation
  cleanup(): Promise<void>
}

/**
 * Where a research contract's evaluator command runs (docs/contracts.md): in the attempt's
 * checkout, with a HOME and TMPDIR of its own, and, where Linux allows it, in mount and PID
 * namespaces in which `hide` (the repository, its git dir with the key file and the lanes)
 * and the scratch folders (other runs' checkouts and unsealed data) are empty. It keeps the
 * checkout and `privateDir`. The attempt's code the evaluator runs can then neither read the
 * key nor write a lane, the cache or the user's work tree, nor reach exp through /proc.
 */
export async function evaluatorSandbox(program: string, args: readonly string[], o: {checkout: string; privateDir?: string; hide: readonly string[]; env: NodeJS.ProcessEnv; isolation?: 'auto' | Isolation}): Promise<EvaluatorSandbox> {
  const base = await mkdtemp(path.join(os.tmpdir(), 'exp-eval-'))
  const home = path.join(base, 'home')
  const tmp = path.join(base, 'tmp')
  await Promise.all([home, tmp].map(d => mkdir(d, {recursive: true})))
  const env: NodeJS.ProcessEnv = {...o.env, HOME: home, TMPDIR: tmp}
  const hide = o.hide.length ? [...new Set([...o.hide, ...scratchFolders()].map(h => path.resolve(h)))].filter(h => existsSync(h)).sort((a, b) => a.length - b.length) : []
  const isolation = o.isolation && o.isolation !== 'auto' ? o.isolation : hide.length ? await detectIsolation() : 'none'
  const keep = [path.resolve(o.checkout), base, ...(o.privateDir ? [path.resolve(o.privateDir)] : [])]
  return {env, ...wrapHidden(program, args, {cwd: o.checkout, env, keep, hide, isolation, pdeathsig: await parentDeathSignal()}), cleanup: () => rm(base, {recursive: true, force: true})}
}

/**
 * Whether `program` can be started from `cwd` (where it is spawned): a path with a slash, or a
 * relative PATH entry, is taken from there — not from exp's own folder, or a contract's
 * `./eval.sh` went unwrapped (no isolation) whenever exp ran from a subfolder or with -C.
 */
function findProgram(program: string, PATH: string, cwd: string): boolean {
  const exec = (p: string) => {
    try {
      accessSync(p, fsConstants.X_OK)
      return statSync(p).isFile()
    } catch {
      return false
    }
  }
  if (program.includes('/')) return exec(path.resolve(cwd, program))
  return PATH.split(path.delimiter).some(d => d && exec(path.resolve(cwd, d, program)))
}
