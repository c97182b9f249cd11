import t, {type Test} from 'tap'
import {execFileSync} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {WRITE_CODE_CACHE} from '../src/vendor/load.js'

// V8's flags are per process: every case runs in a fresh node.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const HOLD = JSON.stringify(path.join(root, 'src/young-generation.ts'))
const LOAD = JSON.stringify(path.join(root, 'src/vendor/load.ts'))
/** node 20's V8 takes a growth factor of 1; newer ones clamp it at 2 (the hold is then a no-op) */
const takesFactorOne = process.versions.v8.startsWith('11.')

function child<T>(code: string, nodeArgs: string[] = []): T {
  const out = execFileSync(process.execPath, [...nodeArgs, '--import', 'tsx', '--input-type=module', '-e', code], {cwd: root, env: {...process.env, [WRITE_CODE_CACHE]: ''}, encoding: 'utf8'})
  return JSON.parse(out.trim().split('\n').pop()!) as T
}

/** A tagged bundle (as scripts/vendor.mjs writes one) and its code cache, written by a node started with `nodeArgs`. */
function bundleWithCache(t: Test, nodeArgs: string[] = []): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'exp-young-'))
  t.teardown(() => fs.rmSync(dir, {recursive: true, force: true}))
  fs.writeFileSync(path.join(dir, 'thing.cjs'), `/*exp-bundle:0123456789abcdef*/module.exports = {answer: 42}\n`)
  child(`process.env.${WRITE_CODE_CACHE} = '1'; const {bundled} = await import(${LOAD}); bundled('thing.cjs', 'none-by-this-name', ${JSON.stringify(dir)}); console.log('{}')`, nodeArgs)
  t.ok(fs.existsSync(path.join(dir, 'thing.cjs.0123456789abcdef.v8')), 'the code cache was written')
  return dir
}

/** JS that loads the bundle in `dir` and evaluates to how its code cache was used */
const load = (dir: string) => `(bundled('thing.cjs', 'none-by-this-name', ${JSON.stringify(dir)}), codeCache.get('thing.cjs'))`

t.test('while held, survivors do not grow the young generation; without the hold they do', {skip: !takesFactorOne && 'this V8 clamps the growth factor at 2'}, async t => {
  // every object made survives (a ledger's entries do): the case V8 grows the space for
  const grow = `const keep = []; for (let i = 0; i < 400000; i++) keep.push({i, s: 'x' + i});`
  const size = `v8.getHeapSpaceStatistics().find(s => s.space_name === 'new_space').space_size`
  const out = child<{before: number; held: number; after: number}>(`import v8 from 'node:v8'
const {holdingYoungGeneration} = await import(${HOLD})
const before = ${size}
const held = await holdingYoungGeneration(async () => { ${grow} return ${size} })
{ ${grow} }
console.log(JSON.stringify({before, held, after: ${size}}))`)
  t.ok(out.held <= out.before, `held: ${out.held} bytes, no more than the ${out.before} it started with`)
  t.ok(out.after > out.held, `put back: the same work grows it (${out.held} → ${out.after} bytes)`)
})

t.test('the flag is put back after the hold: a bundle loaded then uses its code cache', async t => {
  const dir = bundleWithCache(t)
  const out = child<{inside: string; after: string}>(`const {bundled, codeCache} = await import(${LOAD})
const {holdingYoungGeneration} = await import(${HOLD})
const inside = await holdingYoungGeneration(async () => ${load(dir)})
console.log(JSON.stringify({inside, after: ${load(dir)}}))`)
  // (V8 checks a code cache against a hash of its flags: a flag left changed costs every later bundle its cache)
  t.equal(out.after, 'used')
  if (takesFactorOne) t.equal(out.inside, 'rejected', 'inside the hold the flag is changed (the hold does something)')
})

t.test('nested and overlapping holds share one: the flag comes back when the last ends', async t => {
  const dir = bundleWithCache(t)
  const out = child<{afterFirst: string; afterAll: string}>(`const {bundled, codeCache} = await import(${LOAD})
const {holdingYoungGeneration} = await import(${HOLD})
let release
const second = holdingYoungGeneration(() => new Promise(r => (release = r)))
let afterFirst
await holdingYoungGeneration(async () => holdingYoungGeneration(async () => 0))
afterFirst = ${load(dir)}
release()
await second
console.log(JSON.stringify({afterFirst, afterAll: ${load(dir)}}))`)
  if (takesFactorOne) t.equal(out.afterFirst, 'rejected', 'still held while the overlapping hold runs')
  t.equal(out.afterAll, 'used', 'put back when the last hold ends')
})

t.test('a factor the user gave node is left alone', async t => {
  const args = ['--semi-space-growth-factor=4']
  const dir = bundleWithCache(t, args)
  const out = child<{inside: string}>(`const {bundled, codeCache} = await import(${LOAD})
const {holdingYoungGeneration} = await import(${HOLD})
console.log(JSON.stringify({inside: await holdingYoungGeneration(async () => ${load(dir)})}))`, args)
  t.equal(out.inside, 'used', 'no flag changed: the cache made under the same options is accepted')
})

t.test('a failing read still puts the flag back', async t => {
  const dir = bundleWithCache(t)
  const out = child<{error: string; after: string}>(`const {bundled, codeCache} = await import(${LOAD})
const {holdingYoungGeneration} = await import(${HOLD})
let error = ''
try { await holdingYoungGeneration(async () => { throw new Error('the lane is gone') }) } catch (e) { error = e.message }
console.log(JSON.stringify({error, after: ${load(dir)}}))`)
  t.same(out, {error: 'the lane is gone', after: 'used'})
})
