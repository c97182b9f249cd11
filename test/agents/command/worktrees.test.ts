import t from 'tap'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {exp, expJson} from '../../helpers/cli.js'
import {git} from '../../helpers/repo.js'
import {detectIsolation} from '../../../src/agents/command/sandbox.js'
import {workTreesOf} from '../../../src/git/worktrees.js'
import {GitRecordStore} from '../../../src/store/index.js'
import {repositoryHidden} from '../../../src/cli/run-context.js'

// Found by an attack sweep: the sandbox hid the checkout a run started in, its .git and the
// scratch folders, not the repository's other work trees: a run from a linked work tree let
// its agent read the main work tree's scenarios (gold answers, expected states), and the other
// way round; nor a `--scenarios DIR` outside the repository. (The repositories here are under
// HOME: the scratch folders, /tmp among them, are hidden whole.)

const ISOLATED = (await detectIsolation()) !== 'none'
const SKIP = !ISOLATED && 'no mount namespaces or bwrap on this machine: the agent reads by path anyway (docs/trust.md)'

function homeDir(t: {teardown(fn: () => void): void}): string {
  const d = fs.mkdtempSync(path.join(os.homedir(), '.exp-test-wt-'))
  t.teardown(() => fs.rmSync(d, {recursive: true, force: true, maxRetries: 10, retryDelay: 100}))
  return d
}

/** The example in `dir/r` on `branch`, with a linked work tree `dir/wt` on branch side. */
async function twoWorkTrees(dir: string, branch: string): Promise<{main: string; linked: string}> {
  const main = path.join(dir, 'r')
  fs.mkdirSync(main)
  await git(main, 'init', '-q', '-b', branch)
  const init = await exp(['init', '--example', 'onboarding'], {cwd: main})
  if (init.code !== 0) throw new Error(init.stderr)
  const linked = path.join(dir, 'wt')
  await git(main, 'worktree', 'add', '-q', linked, '-b', 'side')
  return {main, linked}
}

/** An agent that answers which of `paths` it can read ("v": a file with content there, "h": not). */
function probeAgent(dir: string, paths: readonly string[]): void {
  fs.writeFileSync(path.join(dir, 'probe.sh'), `#!/bin/sh\nread start\na=\nfor p in ${paths.map(p => `'${p}'`).join(' ')}; do if [ -s "$p" ]; then a="\${a}v"; else a="\${a}h"; fi; done\necho "{\\"type\\":\\"final\\",\\"answer\\":\\"$a\\"}"\n`)
}

const answers = async (cwd: string) => (await expJson<{body: {final_answer?: string}}[]>(['ledger', '--kind', 'trace'], {cwd})).map(r => r.body.final_answer ?? '')

/** One train scenario in `dir/sc1` (a folder of the work tree's own, untracked). */
function oneScenario(from: string, dir: string): string {
  const sc = path.join(dir, 'sc1')
  fs.mkdirSync(sc, {recursive: true})
  fs.copyFileSync(path.join(from, 'scenarios', 'train-access-github.yaml'), path.join(sc, 'train-access-github.yaml'))
  return sc
}

t.test('git names every work tree of a repository, from either of them', async t => {
  for (const branch of ['master', 'main']) {
    const dir = homeDir(t)
    const main = path.join(dir, 'r')
    fs.mkdirSync(main)
    await git(main, 'init', '-q', '-b', branch)
    await git(main, 'commit', '-q', '--allow-empty', '-m', 'one')
    const linked = path.join(dir, 'wt')
    await git(main, 'worktree', 'add', '-q', linked, '-b', 'side')
    const nested = path.join(main, 'inner')
    await git(main, 'worktree', 'add', '-q', nested, '-b', 'inner')
    for (const from of [main, linked, nested]) {
      const store = await GitRecordStore.open(from)
      t.teardown(() => store.close())
      t.same(workTreesOf(store.repo).sort(), [main, nested, linked].sort(), `${branch}: from ${path.basename(from)}`)
      const hides = repositoryHidden(store)
      for (const w of [main, linked, nested]) t.ok(hides.includes(w), `${branch}: an evaluator run from ${path.basename(from)} hides ${path.basename(w)}`)
    }
  }
  // a bare repository has no main work tree, only its linked ones
  const dir = homeDir(t)
  await git(dir, 'init', '-q', '--bare', '-b', 'main', 'b.git')
  const seed = path.join(dir, 'seed')
  await git(dir, 'clone', '-q', path.join(dir, 'b.git'), seed)
  await git(seed, 'commit', '-q', '--allow-empty', '-m', 'one')
  await git(seed, 'push', '-q', 'origin', 'HEAD:main')
  await git(path.join(dir, 'b.git'), 'worktree', 'add', '-q', path.join(dir, 'lw'), 'main')
  t.same(workTreesOf({commonDir: path.join(dir, 'b.git')}), [path.join(dir, 'lw')])
})

for (const branch of ['master', 'main']) {
  t.test(`an agent run from one work tree reads nothing of another (${branch})`, {skip: SKIP}, async t => {
    const dir = homeDir(t)
    const {main, linked} = await twoWorkTrees(dir, branch)
    const gold = 'scenarios/val-access-finance-approval.yaml'
    t.ok(fs.statSync(path.join(main, gold)).size > 0 && fs.statSync(path.join(linked, gold)).size > 0, 'both work trees hold the scenario')
    // from the linked work tree: the main one's scenarios; from the main one: the linked one's
    for (const [here, other] of [
      [linked, main],
      [main, linked],
    ] as const) {
      oneScenario(here, here)
      probeAgent(here, [path.join(other, gold), path.join(other, '.research', 'config.yaml'), '/etc/passwd'])
      const r = await exp(['run', 'train', '--scenarios', 'sc1', '--agent', 'command:/bin/sh probe.sh'], {cwd: here})
      t.equal(r.code, 0, r.stderr)
      t.same(await answers(here), ['hhv'], `from ${path.basename(here)}: ${path.basename(other)} is empty to the agent (and /etc/passwd is there)`)
    }
  })
}

t.test('a --scenarios folder outside the repository is hidden from the agent', {skip: SKIP}, async t => {
  const dir = homeDir(t)
  const {main} = await twoWorkTrees(dir, 'main')
  const sc = oneScenario(main, path.join(dir, 'elsewhere'))
  probeAgent(main, [path.join(sc, 'train-access-github.yaml'), '/etc/passwd'])
  const r = await exp(['run', 'train', '--scenarios', sc, '--agent', 'command:/bin/sh probe.sh'], {cwd: main})
  t.equal(r.code, 0, r.stderr)
  t.same(await answers(main), ['hv'], 'the scenario file is empty to the agent')
})
