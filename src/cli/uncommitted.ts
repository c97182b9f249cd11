import type {Workspace} from '../workspace/port.js'

/** The files whose committed version judges (the policy, contracts, scenarios, seals): an edit left uncommitted is not what judges. */
const JUDGING = /^(\.research\/|scenarios\/)/

/**
 * A note when files that judge have uncommitted changes in this work tree: exp reads the
 * policy, a contract and the scenarios as committed on the main branch (a pull request cannot
 * change what judges it), so an edit a person made and did not commit is silently not used.
 * `dir`: this work tree (undefined in a bare repository: nothing to say).
 */
export async function noteUncommittedJudges(ws: Pick<Workspace, 'dirtyFiles'>, dir: string | undefined, note: (line: string) => void): Promise<void> {
  if (!dir) return
  const files = (await ws.dirtyFiles(dir).catch(() => [])).filter(f => JUDGING.test(f))
  if (!files.length) return
  const shown = files.length > 3 ? `${files.slice(0, 3).join(', ')} (+${files.length - 3} more)` : files.join(', ')
  note(`note: ${shown} ${files.length === 1 ? 'has' : 'have'} uncommitted changes: exp judges by what is committed on the main branch; commit ${files.length === 1 ? 'it' : 'them'} for the change to count`)
}
