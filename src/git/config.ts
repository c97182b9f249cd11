import {readFileSync} from 'node:fs'
import {execFileSync} from 'node:child_process'
import {UsageError} from '../errors/index.js'
import os from 'node:os'
import path from 'node:path'

/**
 * Parse one git config file: `section.subsection.key` (section and key lowercased, the
 * subsection as written) to its values in order. Used for a repository's own config (its
 * format extensions, read before anything else) and by the fallback reader below.
 */
export function parseGitConfig(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>()
  let section = ''
  for (const raw of text.split('\n')) {
    const line = raw.replace(/(^|\s)[#;].*$/, '').trim()
    if (!line) continue
    const sec = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]$/.exec(line)
    if (sec) {
      section = sec[2] === undefined ? sec[1]!.toLowerCase() : `${sec[1]!.toLowerCase()}.${sec[2].replace(/\\(.)/g, '$1')}`
      continue
    }
    const kv = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line)
    if (!kv || !section) continue
    const key = `${section}.${kv[1]!.toLowerCase()}`
    let v = kv[2] ?? 'true'
    if (v.startsWith('"') && v.endsWith('"')) v = v.slice(1, -1).replace(/\\(.)/g, '$1')
    const list = out.get(key) ?? []
    list.push(v)
    out.set(key, list)
  }
  return out
}

/**
 * The configuration git itself sees in the repository at `commonDir`: `git config --list
 * --includes`, which resolves it as every git command does (system, XDG or global file,
 * GIT_CONFIG_GLOBAL and GIT_CONFIG_SYSTEM, include and includeIf files, the repository's
 * config, `GIT_CONFIG_COUNT`/`-c` settings). A reader of the files alone got the identity of
 * exp's commits and `exp.lane` wrong where those came from GIT_CONFIG_GLOBAL or an include.
 * Without a git binary, the files are read here (readConfigFiles).
 */
export function readGitConfig(commonDir: string): Map<string, string[]> {
  let text: Buffer
  try {
    text = execFileSync('git', ['--git-dir', commonDir, 'config', '--list', '--includes', '-z'], {stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 * 1024 * 1024})
  } catch (e) {
    // (exit 1 with no output: no configuration at all)
    const out = (e as {status?: number; stdout?: Buffer}).status === 1 ? (e as {stdout?: Buffer}).stdout : undefined
    if (out?.length === 0) return new Map()
    return readConfigFiles(commonDir)
  }
  return parseConfigList(text)
}

/** `git config --list -z`: entries `key\nvalue\0` (a key set without a value: `key\0`, which is true). */
export function parseConfigList(text: Buffer): Map<string, string[]> {
  const out = new Map<string, string[]>()
  for (const entry of text.toString('utf8').split('\0')) {
    if (!entry) continue
    const nl = entry.indexOf('\n')
    const key = nl < 0 ? entry : entry.slice(0, nl)
    const list = out.get(key) ?? []
    list.push(nl < 0 ? 'true' : entry.slice(nl + 1))
    out.set(key, list)
  }
  return out
}

function readIf(file: string, depth = 0): Map<string, string[]> {
  let cfg: Map<string, string[]>
  try {
    cfg = parseGitConfig(readFileSync(file, 'utf8'))
  } catch {
    return new Map()
  }
  // `[include] path = …` (relative to the including file, `~/` from home), as git reads it
  const includes = cfg.get('include.path')
  if (!includes || depth >= 10) return cfg
  const out = new Map(cfg)
  for (const p of includes) {
    const f = p.startsWith('~/') ? path.join(process.env.HOME ?? os.homedir(), p.slice(2)) : path.resolve(path.dirname(file), p)
    for (const [k, v] of readIf(f, depth + 1)) out.set(k, [...(out.get(k) ?? []), ...v])
  }
  return out
}

/**
 * The fallback of readGitConfig: the files git reads, in its order (system, XDG, global,
 * the repository's; GIT_CONFIG_GLOBAL and GIT_CONFIG_SYSTEM in place of the usual files,
 * GIT_CONFIG_NOSYSTEM), with `include.path` (not includeIf); later files override earlier ones.
 */
export function readConfigFiles(commonDir: string): Map<string, string[]> {
  const env = process.env
  const home = env.HOME ?? os.homedir()
  const xdg = env.XDG_CONFIG_HOME ?? path.join(home, '.config')
  const system = env.GIT_CONFIG_NOSYSTEM ? [] : [env.GIT_CONFIG_SYSTEM ?? '/etc/gitconfig']
  const global = env.GIT_CONFIG_GLOBAL !== undefined ? [env.GIT_CONFIG_GLOBAL] : [path.join(xdg, 'git', 'config'), path.join(home, '.gitconfig')]
  const files = [...system, ...global, path.join(commonDir, 'config')]
  const out = new Map<string, string[]>()
  for (const f of files) for (const [k, v] of readIf(f)) out.set(k, v)
  return out
}

export function configValue(cfg: Map<string, string[]>, key: string): string | undefined {
  const dot = key.lastIndexOf('.')
  const norm = key.slice(0, key.indexOf('.')).toLowerCase() + key.slice(key.indexOf('.'), dot) + key.slice(dot).toLowerCase()
  const v = cfg.get(norm)
  return v ? v[v.length - 1] : undefined
}

/** A size as git writes them (`1048576`, `512k`, `1m`, `2g`), in bytes; a bad value names its key. */
export function parseSize(v: string, key: string): number {
  const m = /^\s*(\d+)\s*([kmg]?)\s*$/i.exec(v)
  if (!m) throw new UsageError(`git config ${key} is ${JSON.stringify(v)}, not a size (e.g. 1048576, 512k, 1m)`, `fix it with \`git config ${key} 1m\``)
  const n = Number(m[1]) * {'': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3}[m[2]!.toLowerCase() as '' | 'k' | 'm' | 'g']
  if (n < 1) throw new UsageError(`git config ${key} is ${JSON.stringify(v)}: a size is at least 1 byte`, `fix it with \`git config ${key} 1m\``)
  // (a value of 20 digits was told it was less than 1 byte)
  if (!Number.isSafeInteger(n)) throw new UsageError(`git config ${key} is ${JSON.stringify(v)}: more bytes than exp can count (at most ${Number.MAX_SAFE_INTEGER})`, `fix it with \`git config ${key} 1m\``)
  return n
}
