import {existsSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {bundled} from './load.js'

type Markdown = typeof import('./markdown-entry.js')

const here = path.dirname(fileURLToPath(import.meta.url))
const BUNDLE = 'markdown.cjs'

// with no bundle (running from src/), the packages themselves, loaded with this module
const fromPackages: Markdown | undefined = existsSync(path.join(here, BUNDLE)) ? undefined : await import('./markdown-entry.js')
let fromBundle: Markdown | undefined

/**
 * unified, remark-parse and remark-gfm, through one seam: the bundle scripts/vendor.mjs
 * builds (one file with its V8 code cache, loaded on the first call: a command that never
 * parses a SKILL.md does not load it), or the packages when there is none (~90 ms to load
 * their ~340 modules, which every command importing the skill parser paid at start).
 */
export function markdown(): Markdown {
  return fromPackages ?? (fromBundle ??= bundled<Markdown>(BUNDLE, 'unified', here))
}
