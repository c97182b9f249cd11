#!/usr/bin/env node
// The protected evaluator of the tuning example (docs/contracts.md): builds the index the
// editable params.json describes, answers queries, and writes metrics.json — the only
// thing exp trusts. Usage: node harness/eval.mjs dev|holdout
//   EXP_SEED           the repetition's seed (the data is drawn from it: the metric is noisy)
//   EXP_PRIVATE_DIR    evaluator-only data: the held-out distribution (data/holdout.json)
import {readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {buildIndex, search} from '../solver/ivf.mjs'

const split = process.argv[2] ?? 'dev'
const seed = Number(process.env.EXP_SEED ?? 1)
const params = JSON.parse(readFileSync('params.json', 'utf8'))

function mulberry32(a) {
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
const gauss = random => Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random())

// the dev distribution is public; the held-out one only the evaluator reads
let world = {points: 1200, queries: 40, dims: 12, clusters: 10, spread: 2.6, seed_offset: 0}
if (split === 'holdout') {
  if (!process.env.EXP_PRIVATE_DIR) {
    console.error('the held-out split needs EXP_PRIVATE_DIR (the sealed data/holdout.json)')
    process.exit(2)
  }
  world = {...world, ...JSON.parse(readFileSync(path.join(process.env.EXP_PRIVATE_DIR, 'data/holdout.json'), 'utf8'))}
}
const random = mulberry32(seed * 7919 + world.seed_offset)
const centers = Array.from({length: world.clusters}, () => Array.from({length: world.dims}, () => gauss(random) * 4))
const draw = () => {
  const c = centers[Math.floor(random() * centers.length)]
  return c.map(x => x + gauss(random) * world.spread)
}
const points = Array.from({length: world.points}, draw)
const queries = Array.from({length: world.queries}, draw)

const index = buildIndex(points, params, random)
let recall = 0
let scanned = 0
let reads = 0
for (const q of queries) {
  const truth = new Set(points.map((p, i) => [p.reduce((s, x, d) => s + (x - q[d]) ** 2, 0), i]).sort((a, b) => a[0] - b[0]).slice(0, 10).map(x => x[1]))
  const got = search(index, points, q, params)
  recall += got.ids.filter(i => truth.has(i)).length / 10
  scanned += got.scanned / points.length
  reads += got.reads
}
recall /= queries.length
scanned /= queries.length
// reading lists costs time, and more than in proportion once the index no longer fits the
// cache: a query that scans most of the index is slow (past the contract's timeout)
await new Promise(r => setTimeout(r, Math.round(2500 * scanned * scanned)))
const score = recall - 0.5 * scanned
writeFileSync('metrics.json', JSON.stringify({score: Math.round(score * 1e6) / 1e6, recall: Math.round(recall * 1e6) / 1e6, scanned: Math.round(scanned * 1e6) / 1e6, list_reads: reads}) + '\n')
console.log(`${split} seed ${seed}: score ${score.toFixed(4)} (recall ${recall.toFixed(3)}, scanned ${(scanned * 100).toFixed(1)}%, ${reads} list reads)`)
