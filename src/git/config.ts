import {readFileSync} from 'node:fs'
import {UsageError} from '../errors/index.js'
import os from 'node:os'
import path from 'node:path'

/**
 * A small reader of git config files (repository, then global, then XDG), enough for the
 * keys exp reads (user.name, user.email, exp.lane, remote.*). Reading it in process keeps
 * `exp append` free of a git child process and of isomorphic-git's start-up cost.
 * Writes go through isomorphic-git or the git binary.
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

function readIf(file: string): Map<string, string[]> {
  try {
    return parseGitConfig(readFileSync(file, 'utf8'))
  } catch {
    return new Map()
  }
}

/** Merged config: later files (the repository's) override earlier ones (global, XDG). */
export function readGitConfig(commonDir: string): Map<string, string[]> {
  const home = process.env.HOME ?? os.homedir()
  const xdg = process.env.XDG_CONFIG_HOME ?? path.join(home, '.config')
  const files = [path.join(xdg, 'git', 'config'), path.join(home, '.gitconfig'), path.join(commonDir, 'config')]
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
  if (!Number.isSafeInteger(n) || n < 1) throw new UsageError(`git config ${key} is ${JSON.stringify(v)}: a size is at least 1 byte`, `fix it with \`git config ${key} 1m\``)
  return n
}
