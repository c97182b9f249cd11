import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp} from '../helpers/cli.js'
import {quadFixture} from '../helpers/contracts.js'

// Found by a sweep: max_parallel_lanes counted every lane with an undecided attempt, for good:
// three lanes that opened an attempt each and went away (or opened them to hold the others off)
// stopped every other lane's research forever, and the hint said to raise max_attempts.
t.test('lanes whose undecided attempts nobody worked on within the claim TTL stop counting against max_parallel_lanes', async t => {
  const repo = await quadFixture(t)
  for (const l of ['idle-a', 'idle-b', 'idle-c']) t.equal((await exp(['attempt', 'new', 'quad', '--lane', l], {cwd: repo})).code, 0)
  const held = await exp(['research', 'quad', '--agent', 'search', '--attempts', '1', '--lane', 'me'], {cwd: repo})
  t.equal(held.code, 6, held.stderr)
  t.match(held.stderr, /3 other lane\(s\) are working on it \(max_parallel_lanes 3\)/)
  t.match(held.stderr, /raise budget\.max_parallel_lanes/, 'the hint names the limit that was hit')
  t.notMatch(held.stderr, /raise budget\.max_attempts/)
  // a claim TTL of a second: those attempts are stale a moment later
  const cfg = path.join(repo, '.research/config.yaml')
  const text = fs.existsSync(cfg) ? fs.readFileSync(cfg, 'utf8') : 'version: 1\n'
  fs.writeFileSync(cfg, /^claims:/m.test(text) ? text.replace(/ttl_seconds: \d+/, 'ttl_seconds: 1') : `${text}claims:\n  ttl_seconds: 1\n`)
  await new Promise(resolve => setTimeout(resolve, 2100))
  const ran = await exp(['research', 'quad', '--agent', 'search', '--attempts', '1', '--lane', 'me'], {cwd: repo})
  t.equal(ran.code, 0, ran.stderr)
})
