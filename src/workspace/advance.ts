import {WorkTreeBehindError, refMoved} from '../errors/index.js'
import type {Workspace} from './port.js'

/**
 * Move the branch `ref` from `from` to `to` (a promotion's merge), as `git merge` would. When
 * a work tree has it checked out — this one, or another of the repository's (a promotion made
 * from a `git worktree add` checkout moves the main checkout's branch) — that work tree
 * follows, under the work-tree lock: a changed file the move would overwrite stops it before
 * the ref moves (E_DIRTY_TREE, nothing changed); a work tree that cannot follow once the ref
 * has moved is returned, not thrown, because the move stands and the caller records it before
 * saying so.
 */
export async function advanceBranch(ws: Workspace, ref: string, from: string, to: string): Promise<WorkTreeBehindError | undefined> {
  await finishInterruptedAdvance(ws, ref)
  const dir = await ws.workTreeWith(ref)
  if (!dir) {
    await ws.moveRef(ref, to, from)
    return undefined
  }
  return ws.exclusive(async () => {
    // moved by another promotion meanwhile (its work tree already follows it): a conflict the
    // caller decides again on, not changes of the user's that the dry run below would report
    const now = await ws.readRef(ref)
    if (now !== from) throw refMoved(ref, now, from)
    await ws.updateWorkTree(from, to, {dryRun: true, dir})
    await ws.moveRef(ref, to, from)
    return ws.updateWorkTree(from, to, {dir}).then(
      () => undefined,
      (e: unknown) => (e instanceof WorkTreeBehindError ? e : Promise.reject(e)),
    )
  })
}

/**
 * A merge commit on main's first-parent line since `base` (the commit the candidate was
 * based on: its own merge comes after it; at most 500 commits) that promoted `id`: a
 * promotion killed after main moved and before its decision was recorded, found when it is
 * run again (which then records the accept with that merge, instead of a reject for a main
 * that moved — by its own merge).
 */
export async function findPromotion(ws: Workspace, tip: string, id: string, base: string): Promise<{oid: string; parents: string[]} | undefined> {
  let oid: string | undefined = tip
  for (let i = 0; oid && oid !== base && i < 500; i++) {
    const c = await ws.readCommit(oid)
    if (c.parents.length > 1 && c.message.includes(`Exp-Promotes: ${id}`)) return {oid, parents: c.parents}
    oid = c.parents[0]
  }
  return undefined
}

/**
 * A promotion killed after it moved `ref` to its merge and before the work tree that has
 * `ref` checked out followed (advanceBranch): the index and the files are still exactly the
 * merge's first parent, and `git status` shows the merge's changes undone — which "commit
 * them" would have made true on main. The work tree is brought to the merge, as the killed
 * promotion would have; true when it was. Anything else in the work tree (a change of the
 * user's) leaves it as it is: the caller's dirty check then names the files.
 */
export async function finishInterruptedAdvance(ws: Workspace, ref: string): Promise<boolean> {
  const dir = await ws.workTreeWith(ref)
  if (!dir) return false
  return ws.exclusive(async () => {
    const tip = await ws.readRef(ref)
    if (!tip) return false
    const c = await ws.readCommit(tip)
    if (c.parents.length < 2 || !/^Exp-Promotes: /m.test(c.message)) return false
    const from = c.parents[0]!
    if (!(await ws.treeIsAt(from, dir)) || (await ws.treeIsAt(tip, dir))) return false
    await ws.updateWorkTree(from, tip, {dir})
    return true
  })
}
