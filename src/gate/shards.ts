import type {Ledger, RecordStore} from '../store/index.js'
import {ExpError} from '../errors/index.js'
import type {RunOptions} from '../evals/runner/run.js'
import {RunSession} from '../evals/runner/session.js'
import {inShard, shardLane, type Shard} from '../evals/runner/shard.js'

export type {Shard}

/**
 * The gate over several CI jobs (`exp ci init --shards N`): each shard job runs its slice of
 * the validation episodes of base and head itself (`exp gate --shard I/N`), on lane
 * `<lane>-shard-<I>`, and ends with a receipt — a note that names the verifications it ran and
 * got — because an episode whose identical record another lane holds already is not written
 * twice, so the lane alone does not say what the job ran. The deciding job (`--shards N`)
 * reuses exactly what the receipts vouch for (each still replayed), runs anything missing
 * itself, and the held-out split itself. The gate never reuses evidence it did not produce.
 */
export interface GateShardReport {
  shard: Shard
  lane: string
  skills: string[]
  /** validation episodes in this slice (base and head, every skill), and how many were run here */
  episodes: number
  recorded: number
  receipts: string[]
}

/**
 * What a receipt says first: which shard of which gate. Its id is its content, and its text
 * ends with the time it was written (from outside: `now`), so nobody can write the same record
 * ahead of the shard job to make its append a no-op on another lane.
 */
const receiptHead = (range: {base: string; head: string}, skill: string, shard: Shard) => `exp gate shard ${shard.index}/${shard.count} of ${range.base}..${range.head}, skill ${skill},`

type ShardRunOptions = Omit<RunOptions, 'skill' | 'role'> & {shard: Shard; range: {base: string; head: string}; skills: {skill: string; base: string; head: string}[]}

export async function gateShard(store: RecordStore, o: ShardRunOptions): Promise<GateShardReport> {
  const lane = shardLane(o.lane, o.shard.index)
  const report: GateShardReport = {shard: o.shard, lane, skills: o.skills.map(s => s.skill), episodes: 0, recorded: 0, receipts: []}
  for (const s of o.skills) {
    const ids: string[] = []
    for (const [role, skill] of [['gate-base', s.base], ['gate-head', s.head]] as const) {
      const session = await RunSession.open(store, {...o, lane, skill, role, reuse: 'none'})
      try {
        const mine = session.slots.filter(x => inShard(session.manifest, x, o.shard))
        await session.ensure(mine)
        ids.push(...session.verified(mine).map(v => v.id))
        report.episodes += mine.length
        report.recorded += session.recorded
      } finally {
        await session.close()
      }
    }
    const at = (o.now ?? (() => new Date()))().toISOString()
    const unique = [...new Set(ids)].sort()
    const text = `${receiptHead(o.range, s.skill, o.shard)} at ${at}: ran these ${unique.length} validation episode(s) itself`
    report.receipts.push((await store.append({kind: 'note', body: {text, about: unique, action: 'comment'}, cites: unique}, {lane, now: o.now})).id)
  }
  return report
}

/** The verifications the N shard jobs of this gate vouch for, from their receipts on their own lanes. */
export function vouchedBy(ledger: Ledger, o: {lane: string; shards: number; range: {base: string; head: string}; skill: string}): Map<string, string> {
  // each id with the shard lane whose receipt names it: the copy reused is the one that lane
  // holds (a copy under the same id on a lane that sorts first is anyone's who may push lanes)
  const out = new Map<string, string>()
  const missing: number[] = []
  const notes = ledger.select({kinds: ['note']})
  for (let index = 1; index <= o.shards; index++) {
    // a receipt counts only on the shard's own lane: the job's artifact, fetched over any lane of that name
    const lane = shardLane(o.lane, index)
    const head = receiptHead(o.range, o.skill, {index, count: o.shards})
    const receipts = notes.filter(e => e.lane === lane).map(e => ledger.load<'note'>(e).body).filter(b => b.text.startsWith(head))
    if (!receipts.length) missing.push(index)
    // one shard job writes one receipt per skill on a lane it began empty: a second one is
    // history the lane had before the job (fetched from a remote, where anyone who may push
    // lanes can write it), and which of them the job wrote cannot be told
    if (receipts.length > 1) throw new ExpError('E_CONFLICT', `lane ${lane} holds ${receipts.length} receipts of shard ${index}/${o.shards} for ${o.skill} (${o.range.base.slice(0, 12)}..${o.range.head.slice(0, 12)}), not one: it held records before its shard job ran, and none of them is taken`, {hint: `a shard job must start without lane ${lane}: fetch the research lanes with '^refs/research/lanes/${o.lane}-shard-*' (as \`exp ci init --shards\` writes it), run the shards again, and hand their lanes over as bundles`, data: {lane, receipts: receipts.length}})
    for (const r of receipts) for (const id of r.about ?? []) out.set(id, lane)
  }
  if (missing.length) throw new ExpError('E_USAGE', `the receipts of shard(s) ${missing.join(', ')} of ${o.shards} for ${o.skill} (${o.range.base.slice(0, 12)}..${o.range.head.slice(0, 12)}) are not on lanes ${missing.map(i => shardLane(o.lane, i)).join(', ')}`, {hint: `run \`exp gate --shard I/${o.shards}\` for each missing shard on the same base and head, and fetch its lane before the deciding job`, data: {missing}})
  return out
}
