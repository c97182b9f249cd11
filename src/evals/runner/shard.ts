import {ExpError} from '../../errors/index.js'
import {recordId} from '../../records/index.js'
import type {RecordStore} from '../../store/index.js'
import {episodeKey} from './records.js'
import type {RunOptions, RunResult} from './run.js'
import {RunSession, type Slot} from './session.js'

/** One slice of a run: shard `index` (1-based) of `count`. */
export interface Shard {
  index: number
  count: number
}

export const MAX_SHARDS = 64

/** `I/N` as written on the command line, checked. */
export function parseShard(text: string): Shard {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text)
  const index = m ? Number(m[1]) : NaN
  const count = m ? Number(m[2]) : NaN
  if (!m || index < 1 || count < 1 || index > count || count > MAX_SHARDS) throw new ExpError('E_USAGE', `--shard ${JSON.stringify(text)} is not a shard: write I/N with 1 <= I <= N <= ${MAX_SHARDS}`, {hint: 'e.g. --shard 2/4 runs the second of four slices'})
  return {index, count}
}

/**
 * Whether a place of a run belongs to a shard: by its episode id (the trace id its key
 * derives), so the slices are disjoint, cover the run, and are the same on every machine.
 */
export function inShard(manifest: string, slot: Pick<Slot, 'scenario' | 'rep'>, shard: Shard): boolean {
  const id = recordId('trace', '', episodeKey(manifest, slot.scenario.id, slot.rep))
  return Number.parseInt(id.slice(3, 11), 16) % shard.count === shard.index - 1
}

/** The lane of shard I of a run recorded on `lane` (`exp gate --shard`): `<lane>-shard-<I>`. */
export function shardLane(lane: string, index: number): string {
  return `${lane}-shard-${index}`
}

export interface ShardResult {
  manifest: string
  shard: Shard
  lane: string
  /** places of the run in this shard, and how many of them were run (not reused) here */
  episodes: number
  recorded: number
  /** places of the whole run with an episode that stands, of all */
  present: number
  total: number
  /** the run's evaluation, recorded once every place has its episode (by any shard, any lane) */
  evaluation?: RunResult
}

/**
 * `exp run SPLIT --shard I/N`: run this shard's slice of the episodes on this lane. When the
 * other shards' episodes are here too (the same repository, or after `exp sync`), the
 * evaluation is assembled from all of them: the same records, so the same evaluation, as one
 * unsharded run. Otherwise it says how many are missing; any shard run again, or the
 * unsharded `exp run`, assembles it later without running anything twice.
 */
export async function runShard(store: RecordStore, o: RunOptions & {shard: Shard}): Promise<ShardResult> {
  const s = await RunSession.open(store, o)
  try {
    const mine = s.slots.filter(x => inShard(s.manifest, x, o.shard))
    await s.ensure(mine)
    await s.refresh()
    const {missing} = await s.ensure(s.slots, {run: () => false})
    const out: ShardResult = {manifest: s.manifest, shard: o.shard, lane: o.lane, episodes: mine.length, recorded: s.recorded, present: s.slots.length - missing.length, total: s.slots.length}
    if (!missing.length) out.evaluation = await s.record(s.verified(), {repeat: o.repeat ?? 1, decorate: o.decorate})
    return out
  } catch (e) {
    s.failed(e)
    throw e
  } finally {
    await s.close()
  }
}
