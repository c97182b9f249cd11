import type {Workspace} from '../workspace/port.js'
import {asksPresence, checkScope, presentOf, type ScopeReport} from './scope.js'

/**
 * checkScope of the paths changed between two commits, as the gate, an attempt's evaluation
 * and a proposal's checks ask it: with the head's links, and — when a changed path is a
 * package file or a module whose answer depends on it (asksPresence) — the folders that hold
 * a protected file at either commit, listed without reading a file.
 */
export async function boundaryOf(ws: Workspace, o: {base: string; head: string; changed: readonly string[]}, contract: {editable_scope: readonly string[]; protected_scope?: readonly string[]}): Promise<ScopeReport> {
  const prot = contract.protected_scope ?? []
  const links = await ws.linkedPaths(o.head, o.changed)
  if (!asksPresence(o.changed, prot)) return checkScope(o.changed, contract, links)
  const trees = await Promise.all([...new Set([o.base, o.head])].map(c => ws.listTree(c)))
  return checkScope(o.changed, contract, links, presentOf(trees.flat().map(e => e.path), prot))
}
