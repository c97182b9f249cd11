import {readFileSync} from 'node:fs'
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
