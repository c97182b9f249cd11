import t, {type Test} from 'tap'
import {execFileSync} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {bundled, codeCache, WRITE_CODE_CACHE} from '../../src/vendor/load.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

// A bundle as scripts/vendor.mjs writes one: its content tag first, CommonJS, its import()
// routed through __expImport.
const TAG = '0123456789abcdef'
const BUNDLE = `/*exp-bundle:${TAG}*/if (typeof __expImport === 'undefined') var __expImport = (s) => import(s);
const os = require('node:os')
module.exports = {
  answer: 42,
  file: __filename,
  eol: os.EOL,
  loadPath: async () => (await __expImport('node:path')).sep,
}
`

function bundleDir(t: Test): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'exp-vendor-'))
  t.teardown(() => fs.rmSync(dir, {recursive: true, force: true}))
  fs.writeFileSync(path.join(dir, 'thing.cjs'), BUNDLE)
  return dir
}

/** Loads thing.cjs in a fresh node process (a code cache is per process) and reports. */
function loadInChild(dir: string, env: Record<string, string> = {}): {answer: number; sep: string; cache: string} {
  const loader = path.join(root, 'src/vendor/load.ts')
  const code = `const {bundled, codeCache} = await import(${JSON.stringify(loader)});
const m = bundled('thing.cjs', 'nothing-by-this-name', ${JSON.stringify(dir)});
console.log(JSON.stringify({answer: m.answer, sep: await m.loadPath(), cache: codeCache.get('thing.cjs')}))`
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {cwd: root, env: {...process.env, ...env}, encoding: 'utf8'})
  return JSON.parse(out.trim().split('\n').pop()!) as {answer: number; sep: string; cache: string}
}

t.test('a bundle loads without a code cache, and its import() works', async t => {
  const dir = bundleDir(t)
  const m = bundled<{answer: number; file: string; eol: string; loadPath(): Promise<string>}>('thing.cjs', 'nothing-by-this-name', dir)
  t.equal(m.answer, 42)
  t.equal(m.file, path.join(dir, 'thing.cjs'), '__filename is the bundle')
  t.equal(m.eol, os.EOL, 'require works inside the bundle')
  t.equal(await m.loadPath(), path.sep, 'import() goes through __expImport')
  t.equal(codeCache.get('thing.cjs'), 'none')
})

t.test('no bundle: the package itself is loaded', async t => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'exp-vendor-'))
  t.teardown(() => fs.rmSync(dir, {recursive: true, force: true}))
  const yaml = bundled<{stringify(v: unknown): string}>('yaml.cjs', 'yaml', dir)
  t.equal(yaml.stringify({a: 1}), 'a: 1\n')
})

t.test('a written code cache is used by the next process; a bad one is rejected and costs nothing else', async t => {
  const dir = bundleDir(t)
  const cache = path.join(dir, `thing.cjs.${TAG}.v8`)
  const first = loadInChild(dir, {[WRITE_CODE_CACHE]: '1'})
  t.same(first, {answer: 42, sep: path.sep, cache: 'none'})
  t.ok(fs.existsSync(cache), 'the cache is written on exit, named by the content tag')
  t.same(loadInChild(dir), {answer: 42, sep: path.sep, cache: 'used'}, 'import() still works from a cached script')
  fs.writeFileSync(cache, 'not a code cache')
  t.same(loadInChild(dir), {answer: 42, sep: path.sep, cache: 'rejected'})
})

t.test('a cache is never used for other content, even of the same length (V8 would accept it)', async t => {
  const dir = bundleDir(t)
  loadInChild(dir, {[WRITE_CODE_CACHE]: '1'})
  // same length, other content and other tag: the old cache must not be applied to it
  const other = BUNDLE.replace(TAG, 'fedcba9876543210').replace('answer: 42', 'answer: 24')
  t.equal(other.length, BUNDLE.length)
  fs.writeFileSync(path.join(dir, 'thing.cjs'), other)
  t.same(loadInChild(dir), {answer: 24, sep: path.sep, cache: 'none'})
  // a bundle without a tag gets no cache at all
  fs.writeFileSync(path.join(dir, 'thing.cjs'), BUNDLE.replace(/^\/\*exp-bundle:[0-9a-f]+\*\//, ''))
  t.same(loadInChild(dir, {[WRITE_CODE_CACHE]: '1'}), {answer: 42, sep: path.sep, cache: 'none'})
  t.same(fs.readdirSync(dir).filter(f => f.endsWith('.v8')), [`thing.cjs.${TAG}.v8`], 'nothing written for an untagged bundle')
})

t.test('the built CLI loads oclif and yaml from their bundles with the cache the build wrote', async t => {
  const probe = `const {codeCache} = await import('./dist/vendor/load.js');
await import('./dist/vendor/oclif.js'); await import('./dist/vendor/yaml.js');
console.log(JSON.stringify(Object.fromEntries(codeCache)))`
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', probe], {cwd: root, encoding: 'utf8'})
  t.same(JSON.parse(out), {'oclif-core.cjs': 'used', 'yaml.cjs': 'used'})
})
