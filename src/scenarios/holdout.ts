import path from 'node:path'
import {ExpError} from '../errors/index.js'
import {shownFrom} from '../paths.js'
import {readWorkFile} from '../work-file.js'
import type {LoadedFile} from './load.js'
import {formatProblem, type Problem} from './types.js'

/** The prefix of held-out scenario ids and file names (docs/scenarios.md): `hold-access-by-name.yaml` holds `id: hold-access-by-name`. */
export const HOLDOUT_PREFIX = 'hold-'

const SPLIT_HOLDOUT = /^[ \t]*["']?split["']?[ \t]*:[ \t]*["']?holdout["']?[ \t]*(#.*)?$/m
const HELD_ID = new RegExp(`^[ \\t]*["']?id["']?[ \\t]*:[ \\t]*["']?${HOLDOUT_PREFIX}`, 'm')

/** Whether a scenario file looks held-out by its raw text or its name, whether or not it parses. */
export function looksHeldOut(file: string, text: string | undefined): boolean {
  return path.basename(file).startsWith(HOLDOUT_PREFIX) || (text !== undefined && (SPLIT_HOLDOUT.test(text) || HELD_ID.test(text)))
}

/** A plain file of a scenarios folder that is (or looks like) a held-out scenario, and why it is not sealed. */
export interface UnsealedHeldOut {
  file: string
  /** `broken`: it does not parse, so `exp seal` cannot seal it and runs skip it; `beside-sealed`: runs ignore it, `exp seal` adds it */
  kind: 'broken' | 'beside-sealed'
  problems: Problem[]
}

/**
 * The plain files of a folder that hold held-out tasks in the clear: those that look held-out
 * (`split: holdout` in their raw YAML, or an id or name with the held-out prefix) but do not
 * parse — `exp seal` picks only files that parse as `split: holdout`, so before it left these
 * in the work tree and suggested committing the folder — and, beside a sealed file, the valid
 * held-out ones it has not sealed yet.
 */
export async function unsealedHeldOut(loaded: readonly LoadedFile[], sealed: boolean): Promise<UnsealedHeldOut[]> {
  const out: UnsealedHeldOut[] = []
  for (const f of loaded) {
    // (a sealed entry is named holdout.sealed#<file>)
    if (f.file.includes('#')) continue
    if (f.scenario) {
      if (sealed && f.scenario.split === 'holdout') out.push({file: f.file, kind: 'beside-sealed', problems: []})
      continue
    }
    const text = await readWorkFile(f.file).then(
      b => b.toString('utf8'),
      () => undefined,
    )
    if (looksHeldOut(f.file, text)) out.push({file: f.file, kind: 'broken', problems: f.problems})
  }
  return out
}

/** The line a command prints for one (paths as seen from the current folder). */
export function unsealedWarning(u: UnsealedHeldOut): string {
  const file = shownFrom(process.cwd(), u.file)
  return u.kind === 'broken'
    ? `warning: ${file} looks like a held-out scenario (split: holdout, or the ${HOLDOUT_PREFIX} prefix) and does not parse: it is not sealed and stays readable in the work tree; fix it (${u.problems[0] ? `line ${u.problems[0].line}` : 'see above'}), then run \`exp seal\``
    : `warning: ${file} is a held-out scenario in the clear beside the sealed file: runs ignore it and it is readable in the work tree; run \`exp seal\` to seal it`
}

/**
 * `exp seal` refuses a folder with files that look held-out and do not parse (non-zero exit,
 * nothing written): each would stay in the work tree in the clear, and the next `git add`
 * of the folder would commit it.
 */
export function assertNoBrokenHeldOut(unsealed: readonly UnsealedHeldOut[]): void {
  const broken = unsealed.filter(u => u.kind === 'broken')
  if (!broken.length) return
  const shown = (p: Problem) => formatProblem({...p, file: shownFrom(process.cwd(), p.file)})
  const lines = broken.flatMap(u => (u.problems.length ? u.problems.map(shown) : [`${shownFrom(process.cwd(), u.file)}:1: does not load`]))
  throw new ExpError('E_SCHEMA', `${broken.length} file(s) look like held-out scenarios (split: holdout, or the ${HOLDOUT_PREFIX} prefix) but do not parse, so they cannot be sealed and would stay in the work tree in the clear; nothing was sealed, removed or written:\n${lines.map(l => `  ${l}`).join('\n')}`, {
    hint: `fix each file:line (\`exp scenarios lint\` checks them), then run \`exp seal\` again; or move the file out of the scenarios folder if it is not a held-out scenario. Do not commit the folder before: ${broken.map(u => shownFrom(process.cwd(), u.file)).join(', ')} would be committed in the clear`,
    data: {files: broken.map(u => u.file), problems: broken.flatMap(u => u.problems)},
  })
}
