// `npm run bench projections`: the research projections over a repository the size the
// issue asks for (10,000 hypotheses in 100,000 records), warm (projection cache valid).
// Figures are written to bench/results/projections.json.
import os from 'node:os'
import path from 'node:path'
import {ROOT, tempRepo, cleanup, runNode, timeCommand, fmtMs, writeResults} from './lib.mjs'

const CHILD = path.join(ROOT, 'bench/projections-child.mjs')
const HYPS = Number(process.env.EXP_BENCH_HYPOTHESES ?? 10_000)
const TOTAL = Number(process.env.EXP_BENCH_RECORDS ?? 100_000)
const TARGET_MS = 200

try {
  const repo = tempRepo('projections')
  const built = await runNode(CHILD, ['build', repo, String(HYPS), String(TOTAL)])
  console.log(`built ${built.records.toLocaleString()} records (${built.hypotheses.toLocaleString()} hypotheses, ${built.research.toLocaleString()} research records) in ${fmtMs(built.ms)}`)
  const w = await runNode(CHILD, ['warm', repo])
  const cli = []
  for (let k = 0; k < 5; k++) cli.push((await timeCommand(process.execPath, [path.join(ROOT, 'bin/run.js'), 'frontier', '--agent-id', 'agent-a', '--json'], {cwd: repo})).ms)
  const cliMs = cli.sort((a, b) => a - b)[2]
  const load = os.loadavg()[0]
  const rows = [
    ['case', 'median', 'best', 'target', 'ok'],
    ['warm frontier in process (ledger() + frontier())', fmtMs(w.total_ms), fmtMs(w.total_min_ms), `<= ${TARGET_MS} ms`, w.total_ms <= TARGET_MS ? 'yes' : 'NO'],
    ['  of which store.ledger() (the floor)', fmtMs(w.ledger_ms), fmtMs(w.ledger_min_ms), '', ''],
    ['  of which frontier()', fmtMs(w.frontier_ms), fmtMs(w.frontier_min_ms), '', ''],
    ['hypotheses() (every status and history)', fmtMs(w.hypotheses_ms), '', '', ''],
    ['checkTransitions() (what exp fsck adds)', fmtMs(w.transitions_ms), '', '', ''],
    ['graph() without statements', fmtMs(w.graph_ms), '', '', ''],
    ['`exp frontier --json` end to end (median of 5)', fmtMs(cliMs), '', '', ''],
  ]
  const width = rows[0].map((_, i) => Math.max(...rows.map(r => r[i].length)))
  console.log(`\nprojections over ${built.records.toLocaleString()} records / ${built.hypotheses.toLocaleString()} hypotheses (peak RSS ${w.rssMB.toFixed(0)} MB; ${os.cpus().length} CPUs, load average ${load.toFixed(1)})`)
  for (const r of rows) console.log(r.map((c, i) => c.padEnd(width[i])).join('  ').trimEnd())
  console.log(`statuses: ${JSON.stringify(w.statuses)}; agent-a: ${w.blocked} blocked, ${w.promotion_candidates} promotion candidates, selected ${w.selected?.hypothesis ?? 'none'} (${w.selected?.allowed_action ?? ''})`)
  writeResults('projections', {records: built.records, hypotheses: built.hypotheses, build_ms: built.ms, ...w, cli_frontier_ms: cliMs, target_ms: TARGET_MS, load_average: load})
} finally {
  cleanup()
}
