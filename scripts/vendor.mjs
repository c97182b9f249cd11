#!/usr/bin/env node
// Bundles the CLI's start-up-heavy dependencies, @oclif/core, yaml and the markdown parser,
// each into one CommonJS file under dist/vendor/ (esbuild). Loading one file instead of ~150
// small modules takes ~50 ms off every `exp` command (measured: oclif 100 -> 55 ms, yaml 39 ->
// 11 ms), and the markdown parser's ~340 modules ~90 ms off each command that parses a skill.
// src/vendor/*.ts load these when present and the packages themselves otherwise (tests
// running from src/), so nothing depends on the bundles existing.
import {build} from 'esbuild'
import {fileURLToPath} from 'node:url'
import path from 'node:path'
import {createRequire} from 'node:module'
import {readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createHash} from 'node:crypto'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const require = createRequire(import.meta.url)

// Start-up work oclif does for every command that an `exp` command never needs, taken out
// at bundle time (each measured with a CPU profile of `exp append`). A patch whose text is
// not found fails the build, so an oclif upgrade cannot silently drop or misapply one.
const oclifPatches = {
  // sorting the manifest's command ids with localeCompare initialises ICU's collator
  // (~12 ms); ids are ASCII, so a code-unit comparison gives the same order
  'config/plugin.js': [
    ['.sort((a, b) => a.id.localeCompare(b.id));', '.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));'],
    // the glob library only discovers commands when there is no manifest; load it then
    ['const tinyglobby_1 = require("tinyglobby");', 'const tinyglobby_1 = {get glob() { return require("tinyglobby").glob; }};'],
  ],
}

/** oclif's logger builds a `debug` logger per namespace; `debug` loads tty and net (~9 ms). */
const lazyDebug = `module.exports = function debug(namespace) {
  if (process.env.DEBUG) return require(REAL)(namespace);
  const off = () => {};
  off.enabled = false;
  off.namespace = namespace;
  return off;
};`

const oclifPlugin = {
  name: 'exp-oclif-startup',
  setup(b) {
    b.onResolve({filter: /^debug$/}, args => ({path: args.importer, namespace: 'exp-lazy-debug', pluginData: {real: require.resolve('debug', {paths: [args.resolveDir]})}}))
    b.onLoad({filter: /.*/, namespace: 'exp-lazy-debug'}, args => ({contents: lazyDebug.replace('REAL', JSON.stringify(args.pluginData.real)), loader: 'js', resolveDir: path.dirname(args.pluginData.real)}))
    b.onLoad({filter: /@oclif[\\/]core[\\/]lib[\\/].*\.js$/}, args => {
      const rel = args.path.split(/[\\/]lib[\\/]/).pop().replaceAll('\\', '/')
      const patches = oclifPatches[rel]
      if (!patches) return undefined
      let code = readFileSync(args.path, 'utf8')
      for (const [from, to] of patches) {
        if (!code.includes(from)) throw new Error(`scripts/vendor.mjs: @oclif/core/lib/${rel} no longer contains ${JSON.stringify(from)}; update or drop this patch`)
        code = code.replace(from, to)
      }
      return {contents: code, loader: 'js'}
    })
  },
}

const bundles = [
  // oclif loads TypeScript support (typescript, ts-node, tsx) only for development plugins
  {name: 'oclif-core', entry: require.resolve('@oclif/core'), external: ['typescript', 'ts-node', 'tsx'], plugins: [oclifPlugin]},
  {name: 'yaml', entry: require.resolve('yaml'), external: [], plugins: []},
  // unified + remark-parse + remark-gfm: ~340 ES modules, ~90 ms of every command that parses a
  // SKILL.md (src/vendor/markdown.ts); tsc's output of src/vendor/markdown-entry.ts is the entry
  {name: 'markdown', entry: path.join(root, 'dist/vendor/markdown-entry.js'), external: [], plugins: []},
]
for (const b of bundles) {
  const outfile = path.join(root, 'dist/vendor', `${b.name}.cjs`)
  // V8 checks a code cache against its source's length, not its content, so a cache is
  // named by the content it was made from (the bundle's first line, read by
  // src/vendor/load.ts); the caches of earlier bundles go (scripts/code-cache.mjs writes one)
  for (const f of readdirSync(path.dirname(outfile))) if (f.startsWith(`${b.name}.cjs.`) && f.endsWith('.v8')) rmSync(path.join(path.dirname(outfile), f))
  await build({entryPoints: [b.entry], outfile, bundle: true, platform: 'node', format: 'cjs', target: 'node20', external: b.external, plugins: b.plugins, minify: true, logLevel: 'error', legalComments: 'inline'})
  // src/vendor/load.ts compiles a bundle with its V8 code cache (vm.Script), where node 20
  // loses the dynamic-import callback of a script built from a cache; so the bundle's
  // import() calls go through __expImport, which load.ts passes in (and which is plain
  // import() when the bundle is require()d).
  const code = readFileSync(outfile, 'utf8')
  const imports = code.split('await import(').length - 1
  const body = `if (typeof __expImport === 'undefined') var __expImport = (s) => import(s);\n${code.replaceAll('await import(', 'await __expImport(')}`
  writeFileSync(outfile, `/*exp-bundle:${createHash('sha256').update(body).digest('hex').slice(0, 16)}*/${body}`)
  if (code.replace(/await import\(/g, '').match(/[^"'`\w.]import\(/)) throw new Error(`${b.name}: an import() that is not awaited; scripts/vendor.mjs must route it through __expImport`)
  if (b.name === 'oclif-core' && imports === 0) throw new Error('oclif-core: no import() found; has the bundle changed shape?')
}
