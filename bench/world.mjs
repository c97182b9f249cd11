#!/usr/bin/env node
// Throughput of the deterministic world + scripted agent (the hot path of every sweep).
// usage: npm run bench -- world   (or: node bench/world.mjs [--seconds 3] [--workers 2])
//
// Reports episodes per second for three loops over every built-in scenario:
//   world+agent   the agent playing against the world, nothing else (the ≥10,000/s target)
//   graded        + grading the final state (what a success-rate sweep does)
//   recorded      + state digests and the full EpisodeResult (what a trace needs)
// Rates are given per wall-clock second and, for one thread, per CPU second of the process
// (on a shared machine that figure depends less on what else is running).
import {isMainThread, parentPort, Worker, workerData} from 'node:worker_threads'
import {fileURLToPath} from 'node:url'
import path from 'node:path'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const dist = rel => import(path.join(root, 'dist', rel))

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? Number(process.argv[i + 1]) : fallback
}

async function loops() {
  const {loadScenarios, initialStateOf} = await dist('scenarios/index.js')
  const {ScriptedAgent} = await dist('agents/scripted/index.js')
  const {World, TOOL_SPECS} = await dist('world/index.js')
  const {SYSTEM_PROMPT, gradeEpisode, runEpisode} = await dist('evals/index.js')
  const scenarios = await loadScenarios(path.join(root, 'scenarios'))
  const agent = new ScriptedAgent()
  const worlds = scenarios.map(s => new World(initialStateOf(s)))
  return {
    'world+agent': async seed => {
      for (let i = 0; i < scenarios.length; i++) {
        const w = worlds[i]
        w.reset()
        await agent.run({system: SYSTEM_PROMPT, skills: [], task: scenarios[i].task, tools: TOOL_SPECS}, async c => w.invoke(c).outcome, {seed, repetition: 0, maxSteps: 40})
      }
      return scenarios.length
    },
    graded: async seed => {
      for (const scenario of scenarios) await gradeEpisode({scenario, agent, skills: [], seed})
      return scenarios.length
    },
    recorded: async seed => {
      for (const scenario of scenarios) await runEpisode({scenario, agent, skills: [], seed})
      return scenarios.length
    },
  }
}

async function measure(loop, seconds) {
  for (let seed = 0; seed < 30; seed++) await loop(seed) // warm up the JIT
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  let n = 0
  let seed = 1000
  while (performance.now() - t0 < seconds * 1000) n += await loop(seed++)
  const wall = (performance.now() - t0) / 1000
  const c = process.cpuUsage(cpu0)
  return {episodes: n, perWallSecond: n / wall, perCpuSecond: n / ((c.user + c.system) / 1e6)}
}

if (!isMainThread) {
  const all = await loops()
  parentPort.postMessage(await measure(all[workerData.loop], workerData.seconds))
} else {
  const seconds = arg('seconds', 3)
  const workers = arg('workers', 1)
  const all = await loops()
  const fmt = x => Math.round(x).toLocaleString('en-US')
  const results = {}
  console.log(`node ${process.version}, ${seconds}s per loop, ${workers} thread(s); target: world+agent >= 10,000 episodes/s`)
  for (const name of Object.keys(all)) {
    let r
    if (workers > 1) {
      const parts = await Promise.all(Array.from({length: workers}, () => new Promise((resolve, reject) => {
        const w = new Worker(fileURLToPath(import.meta.url), {workerData: {loop: name, seconds}})
        w.once('message', resolve)
        w.once('error', reject)
      })))
      // process.cpuUsage() counts every thread of the process, so only wall rates add up
      r = parts.reduce((a, b) => ({episodes: a.episodes + b.episodes, perWallSecond: a.perWallSecond + b.perWallSecond}))
    } else {
      r = await measure(all[name], seconds)
    }
    const cpu = r.perCpuSecond === undefined ? '' : `  ${fmt(r.perCpuSecond).padStart(8)} episodes/s per CPU second`
    console.log(`${name.padEnd(12)} ${fmt(r.perWallSecond).padStart(8)} episodes/s wall${cpu}  (${fmt(r.episodes)} episodes)`)
    results[name] = r
  }
  const {writeResults} = await import('./lib.mjs')
  writeResults('world', {seconds, workers, results, target_world_agent_per_s: 10000, ok: results['world+agent'].perWallSecond >= 10000})
}
