// ts-node transpiler (https://typestrong.org/ts-node/docs/transpilers) over esbuild, for the
// test runner only: tap 21 loads every test file and the src/ modules it imports through
// ts-node, whose TypeScript transpileModule cost about a second of CPU per test file on top
// of the test itself (134 files: a minute and a half of the suite's wall time on 2 cores).
// Transpile only, like before (TS_NODE_TRANSPILE_ONLY): `npm run typecheck` checks the types.
// Chosen by the "ts-node" section of tsconfig.json (tsc ignores it), which ts-node reads from
// the working directory.
//
// Each module's output is kept in a folder of the temp dir, keyed by a hash of its path and
// source: a test run transpiles each module once, not once per test file that imports it.
// On a miss esbuild runs as one short process (ESBUILD_WORKER_THREADS=0), not as esbuild's
// default service process that lives as long as the test: tests check that no child of
// theirs is left behind.
/* global require, exports */
/* eslint-disable @typescript-eslint/no-require-imports */
'use strict'
const crypto = require('node:crypto')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const CACHE = path.join(os.tmpdir(), 'exp-tap-transpile')
// what tsconfig.json's target ES2022 and verbatimModuleSyntax: false mean to tsc: define
// semantics for class fields, imports used only as types are dropped
const OPTIONS = {
  sourcemap: 'external',
  target: 'es2022',
  tsconfigRaw: {compilerOptions: {target: 'ES2022', useDefineForClassFields: true, verbatimModuleSyntax: false}},
}

let esbuild
function load() {
  if (esbuild) return esbuild
  // esbuild reads the variable once, when loaded: the test's own children do not see it
  const before = process.env.ESBUILD_WORKER_THREADS
  process.env.ESBUILD_WORKER_THREADS = '0'
  esbuild = require('esbuild')
  if (before === undefined) delete process.env.ESBUILD_WORKER_THREADS
  else process.env.ESBUILD_WORKER_THREADS = before
  return esbuild
}

const VERSION = require('esbuild/package.json').version

exports.create = () => ({
  transpile(input, {fileName}) {
    const key = crypto.createHash('sha256').update(JSON.stringify([VERSION, OPTIONS, fileName])).update('\0').update(input).digest('hex')
    const file = path.join(CACHE, `${key}.json`)
    try {
      return JSON.parse(fs.readFileSync(file, 'utf8'))
    } catch {
      // not there yet (or half written by a process killed mid-write: rewritten below)
    }
    const r = load().transformSync(input, {...OPTIONS, loader: fileName.endsWith('x') ? 'tsx' : 'ts', sourcefile: fileName})
    const out = {outputText: r.code, sourceMapText: r.map}
    try {
      fs.mkdirSync(CACHE, {recursive: true})
      const tmp = `${file}.${process.pid}.tmp`
      fs.writeFileSync(tmp, JSON.stringify(out))
      fs.renameSync(tmp, file)
    } catch {
      // a cache that cannot be written only costs time
    }
    return out
  },
})
