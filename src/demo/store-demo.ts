import {existsSync, readdirSync} from 'node:fs'
import {mkdir} from 'node:fs/promises'
import {ExpError} from '../errors/index.js'
import {runGit} from '../store/git/native.js'
import {GitRecordStore, discoverRepo} from '../store/index.js'
import {initResearch} from '../research/init.js'

export interface StoreDemoResult {
  dir: string
  records: number
  lanes: string[]
}

/** The foundation demo: a fresh repository, exp set up in it, a short cited chain of records on two lanes. */
export async function runStoreDemo(dir: string, say: (line: string) => unknown): Promise<StoreDemoResult> {
  if (existsSync(dir) && readdirSync(dir).length) throw new ExpError('E_USAGE', `${dir} is not empty`, {hint: 'pass --dir with a new or empty folder, or leave it out to use a temp folder'})
  await mkdir(dir, {recursive: true})
  await runGit(['init', '-q', '-b', 'main', dir], {cwd: dir})
  await initResearch(discoverRepo(dir))
  say(`repository: ${dir}`)
  const store = await GitRecordStore.open(dir)
  try {
    const hyp = await store.append({kind: 'hypothesis', body: {statement: 'Checking inventory before assigning hardware raises onboarding success', mechanism: 'assignments of out-of-stock models fail', expected_effect: {metric: 'success_rate', direction: 'increase', split: 'validation'}, conditions: ['onboarding'], mechanism_family: 'missing_check'}}, {lane: 'alice'})
    say(`alice proposed ${hyp.id}`)
    const claim = await store.append({kind: 'claim', body: {hypothesis: hyp.id, holder: 'bob', ttl_seconds: 3600, expires_at: new Date(Date.now() + 3600_000).toISOString()}, cites: [hyp.id]}, {lane: 'bob'})
    say(`bob claimed it with ${claim.id}`)
    const note = await store.append({kind: 'note', body: {text: 'Three of five failing train runs called assign_device without get_inventory.', about: [hyp.id]}, cites: [hyp.id]}, {lane: 'bob'})
    say(`bob noted ${note.id}`)
    const ledger = await store.ledger()
    say('')
    say('ledger (lamport, lane, kind, id):')
    for (const e of ledger.entries) say(`  ${e.lamport}  ${e.lane.padEnd(6)} ${e.kind.padEnd(10)} ${e.id}`)
    say('')
    say(`try: cd ${dir} && exp ledger && exp inspect ${hyp.id} && git log --format='%s%n%b' refs/research/lanes/bob`)
    return {dir, records: ledger.size, lanes: [...new Set(ledger.entries.map(e => e.lane))]}
  } finally {
    await store.close()
  }
}
