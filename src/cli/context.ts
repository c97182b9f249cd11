import {loadConfig} from '../research/files.js'
import {GitRecordStore, resolveLane} from '../store/index.js'
import type {ResearchConfig} from '../records/types.js'

/** Open the record store of the repository containing `dir`. */
export function openStore(dir: string): Promise<GitRecordStore> {
  return GitRecordStore.open(dir)
}

/**
 * The lane this command writes to: --lane, EXP_LANE, git config exp.lane, or user@host.
 * .research/config.yaml is read first (every command that writes to a lane comes here): one
 * that does not parse or validate, or that names a lane (every clone's, src/research/files.ts),
 * refuses the command before it writes anything.
 */
export async function laneOf(store: GitRecordStore, flag?: string): Promise<string> {
  if (store.repo.workDir) await loadConfig(store.repo.workDir)
  return resolveLane({flag, gitConfig: await store.config('exp.lane')}).lane
}

/**
 * The store's .research/config.yaml, validated (defaults for all of it in a bare repository,
 * which has no work tree to hold one).
 */
export async function configOf(store: GitRecordStore): Promise<ResearchConfig> {
  return store.repo.workDir ? loadConfig(store.repo.workDir) : {version: 1}
}

export async function withStore<T>(dir: string, fn: (s: GitRecordStore) => Promise<T>): Promise<T> {
  const s = await openStore(dir)
  try {
    return await fn(s)
  } finally {
    await s.close()
  }
}
