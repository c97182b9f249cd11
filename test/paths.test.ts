import t from 'tap'
import path from 'node:path'
import {shownFrom, within} from '../src/paths.js'

t.test('within: a folder named with two dots is inside; .. and other trees are not', async t => {
  const dir = path.resolve('/repo/work')
  for (const p of ['/repo/work', '/repo/work/a', '/repo/work/..out', '/repo/work/..out/x', '/repo/work/a/../b', '/repo/work/...']) t.ok(within(p, dir), `${p} is within ${dir}`)
  for (const p of ['/repo', '/repo/work2', '/repo/work/..', '/repo/work/../x', '/other', '/repo/..work']) t.notOk(within(p, dir), `${p} is not within ${dir}`)
  t.ok(within('work/x', path.resolve('work')), 'relative paths resolve from the current folder')
})

t.test('shownFrom: relative below the folder, as given elsewhere', async t => {
  t.equal(shownFrom('/repo', '/repo/..out/r.md'), '..out/r.md')
  t.equal(shownFrom('/repo', '/repo'), '/repo')
  t.equal(shownFrom('/repo/a', '/repo/b/c'), '/repo/b/c')
})
