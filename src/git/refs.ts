import {readFileSync, readdirSync} from 'node:fs'
import path from 'node:path'
import {CorruptObjectError} from '../errors/index.js'

const OID_RE = /^[0-9a-f]{40}$/

/** Parse packed-refs into a map (peeled lines ignored). */
export function readPackedRefs(commonDir: string): Map<string, string> {
  const out = new Map<string, string>()
  let text: string
  try {
    text = readFileSync(path.join(commonDir, 'packed-refs'), 'utf8')
  } catch {
    return out
  }
  for (const line of text.split('\n')) {
    if (!line || line[0] === '#' || line[0] === '^') continue
    const sp = line.indexOf(' ')
    if (sp === 40) out.set(line.slice(41), line.slice(0, 40))
  }
  return out
}

// Ref reads are synchronous: a few tiny files, read on every append under the lane lock.
function readLoose(commonDir: string, ref: string): string | undefined {
  let text: string
  try {
    text = readFileSync(path.join(commonDir, ref), 'utf8')
  } catch (e) {
    // (a name too long for a file, `--base <300 characters>`, is no loose ref: packed-refs may hold it)
    const code = (e as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR' || code === 'ENAMETOOLONG') return undefined
    throw e
  }
  const v = text.trim()
  if (v.startsWith('ref: ')) return undefined // symbolic refs are not lanes
  if (!OID_RE.test(v)) throw new CorruptObjectError('ref', `${ref} holds ${JSON.stringify(v.slice(0, 60))}, not an object id`, {ref})
  return v
}

/** Resolve a full ref name (loose first, then packed-refs). */
export async function readRef(commonDir: string, ref: string, packed?: Map<string, string>): Promise<string | undefined> {
  return readLoose(commonDir, ref) ?? (packed ?? readPackedRefs(commonDir)).get(ref)
}

/** A ref file that does not name an object (garbage text, a symbolic ref, a folder where a file should be). */
export interface BadRef {
  ref: string
  reason: string
  /** what to do about it, when the usual next step (restore the ref) is not it */
  hint?: string
}

/** All refs under a prefix (e.g. `refs/research/`), loose overriding packed, sorted by name. */
export async function listRefs(commonDir: string, prefix: string): Promise<Map<string, string>> {
  return scanRefs(commonDir, prefix).refs
}

/** The same, and the ref files under the prefix that do not hold an object id (reported, not skipped silently). */
export function scanRefs(commonDir: string, prefix: string): {refs: Map<string, string>; bad: BadRef[]} {
  const out = new Map<string, string>()
  const bad: BadRef[] = []
  for (const [name, oid] of readPackedRefs(commonDir)) if (name.startsWith(prefix)) out.set(name, oid)
  const walk = (rel: string): void => {
    let entries
    try {
      entries = readdirSync(path.join(commonDir, rel), {withFileTypes: true})
    } catch {
      return
    }
    for (const e of entries) {
      const child = `${rel}/${e.name}`
      if (e.isDirectory()) walk(child)
      // lock files and exp's own temp files (`.lock` in the name, or a `~`, which no ref name may hold)
      else if (e.isFile() && !e.name.includes('.lock') && !e.name.includes('~')) {
        let text: string
        try {
          text = readFileSync(path.join(commonDir, child), 'utf8').trim()
        } catch {
          continue // removed since the listing: it is gone, not broken
        }
        if (OID_RE.test(text)) out.set(child, text)
        else {
          // a loose ref file shadows any packed value: the ref is broken, not its packed copy
          out.delete(child)
          bad.push({ref: child, reason: text.startsWith('ref: ') ? `it is a symbolic ref (${text.slice(0, 80)})` : `it holds ${JSON.stringify(text.slice(0, 60))}, not an object id`})
        }
      }
    }
  }
  walk(prefix.replace(/\/$/, ''))
  return {refs: new Map([...out.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))), bad: bad.sort((a, b) => (a.ref < b.ref ? -1 : 1))}
}
