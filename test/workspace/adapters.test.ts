import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {workspaceContract} from './contract.js'
import {git, makeRepo} from '../helpers/repo.js'
import {GitRecordStore} from '../../src/store/index.js'
import {GitWorkspace} from '../../src/workspace/git.js'
import {MemoryWorkspace} from '../../src/workspace/memory.js'

t.test('the git adapter', async t => {
  workspaceContract(t, async (t, files) => {
    const repo = await makeRepo(t, {empty: true})
    for (const [p, c] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(repo, p)), {recursive: true})
      fs.writeFileSync(path.join(repo, p), c)
    }
    await git(repo, 'add', '-A')
    await git(repo, 'commit', '-qm', 'init')
    const store = await GitRecordStore.open(repo)
    t.teardown(() => store.close())
    return {ws: new GitWorkspace(store), main: (await git(repo, 'rev-parse', 'main')).trim()}
  })
})

t.test('the memory adapter', async t => {
  workspaceContract(t, async (_t, files) => {
    const ws = new MemoryWorkspace()
    return {ws, main: ws.seed('main', files)}
  })
})
