// ts-node transpiler (https://typestrong.org/ts-node/docs/transpilers) over esbuild, for the
// test runner only: tap 21 loads every test file and the src/ modules it imports through
// ts-node, whose TypeScript transpileModule cost about a second of CPU per test file on top
// of the test itself (134 files: a minute and a half of the suite's wall time on 2 cores).
// Transpile only, like before (TS_NODE_TRANSPILE_ONLY): `npm run typecheck` checks the types.
// Chosen by the "ts-node" section of tsconfig.json (tsc ignores it), which ts-node reads from the working directory.
/* global require, exports */
// CommonJS: ts-node require()s its transpiler
/* eslint-disable @typescript-eslint/no-require-imports */
'use strict'
const esbuild = require('esbuild')

exports.create = () => ({
  transpile(input, {fileName}) {
    const r = esbuild.transformSync(input, {
      loader: fileName.endsWith('x') ? 'tsx' : 'ts',
      sourcefile: fileName,
      sourcemap: 'external',
      // what tsconfig.json's target ES2022 and verbatimModuleSyntax: false mean to tsc:
      // define semantics for class fields, imports used only as types are dropped
      target: 'es2022',
      tsconfigRaw: {compilerOptions: {target: 'ES2022', useDefineForClassFields: true, verbatimModuleSyntax: false}},
    })
    return {outputText: r.code, sourceMapText: r.map}
  },
})
