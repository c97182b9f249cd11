import fs from 'node:fs'
import path from 'node:path'
import type {Test} from 'tap'
import {exp} from './cli.js'
import {cachedFixture} from './fixture-cache.js'
import {startGitHttpServer} from './git-http-server.js'
import {git, tempDir} from './repo.js'

const INPUTS = ['src', 'schemas', 'test/helpers/hub-fixture.ts', 'test/helpers/fixture-cache.ts', 'test/helpers/repo.ts']

interface Built {
  inits: {name: string; code: number; stderr: string}[]
}

/**
 * A bare hub (main holding one empty commit, receive.fsckObjects on) and two clones of it,
 * c1 and c2, each set up with `exp init`: made once per version of the code (cachedFixture),
 * copied per test, and each copy's origin pointed at its own copy of the hub, over a path or
 * a smart-HTTP server on 127.0.0.1 (isomorphic-git). `exp init` configures the research
 * refspecs of every remote whatever its URL, so the clones are as if set up over either.
 * Each clone's `exp init` exit status is asserted in the test, as when it ran there.
 */
export async function hubAndClones(t: Test, transport: 'path' | 'http'): Promise<{hub: string; c1: string; c2: string}> {
  const {dir, data} = await cachedFixture<Built>('hub-clones', INPUTS, async root => {
    const hub = path.join(root, 'hub.git')
    await git(root, 'init', '-q', '--bare', '-b', 'main', hub)
    await git(hub, 'config', 'receive.fsckObjects', 'true')
    const seed = path.join(root, 'seed')
    await git(root, 'init', '-q', '-b', 'main', seed)
    await git(seed, 'config', 'user.name', 'exp test')
    await git(seed, 'config', 'user.email', 'test@exp.invalid')
    await git(seed, 'commit', '-q', '--allow-empty', '-m', 'init')
    await git(seed, 'push', '-q', hub, 'main')
    fs.rmSync(seed, {recursive: true, force: true})
    const inits: Built['inits'] = []
    for (const name of ['c1', 'c2']) {
      const c = path.join(root, name)
      await git(root, 'clone', '-q', hub, c)
      const init = await exp(['init'], {cwd: c})
      inits.push({name, code: init.code, stderr: init.stderr})
    }
    return {inits}
  })
  const root = tempDir(t)
  fs.cpSync(dir, root, {recursive: true})
  const hub = path.join(root, 'hub.git')
  const clones: string[] = []
  for (const {name, code, stderr} of data.inits) {
    const c = path.join(root, name)
    if (transport === 'http') {
      const server = await startGitHttpServer(root)
      t.teardown(() => server.close())
      await git(c, 'remote', 'set-url', 'origin', `${server.url}/hub.git`)
    } else await git(c, 'remote', 'set-url', 'origin', hub)
    t.equal(code, 0, `exp init in ${name}: ${stderr}`)
    clones.push(c)
  }
  return {hub, c1: clones[0]!, c2: clones[1]!}
}
