import {readFileSync, renameSync, writeFileSync} from 'node:fs'
import {createRequire, Module} from 'node:module'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import vm from 'node:vm'

const here = path.dirname(fileURLToPath(import.meta.url))
const require = createRequire(import.meta.url)

/** Set by scripts/code-cache.mjs at build time: write each bundle's V8 code cache on exit. */
export const WRITE_CODE_CACHE = 'EXP_WRITE_CODE_CACHE'

/** How each bundle loaded in this process used its code cache (for tests and `--debug`). */
export const codeCache = new Map<string, 'used' | 'rejected' | 'none'>()

/**
 * A dependency from its single-file bundle next to this module (`dist/vendor/<file>`,
 * written by scripts/vendor.mjs at build time), or from the package itself when there is
 * no bundle (running from src/).
 *
 * The bundle is compiled with its V8 code cache (`<file>.<content hash>.v8`, written at build time by
 * running one command with EXP_WRITE_CODE_CACHE set), which skips parsing and compiling
 * the functions that command used (~20 ms of every `exp` start). A cache that is missing,
 * or that V8 rejects (another node version), only gives that time back.
 */
export function bundled<T>(file: string, pkg: string, dir = here): T {
  const filename = path.join(dir, file)
  let source: string
  try {
    source = readFileSync(filename, 'utf8')
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e
    return require(pkg) as T
  }
  return evaluate(filename, source) as T
}

/**
 * Runs a CommonJS bundle as node's loader would, but compiled through vm.Script so it can
 * use a code cache. The bundle's import() calls go through the __expImport parameter
 * (scripts/vendor.mjs rewrites them): node 20 loses a vm script's dynamic-import callback
 * when the script is built from a code cache.
 */
function evaluate(filename: string, source: string): unknown {
  // V8 accepts a cache made from any source of the same length, so the cache is named by
  // the bundle's content hash, which scripts/vendor.mjs writes on its first line
  const tag = /^\/\*exp-bundle:([0-9a-f]{16})\*\//.exec(source)?.[1]
  const cacheFile = tag ? `${filename}.${tag}.v8` : undefined
  let cachedData: Buffer | undefined
  try {
    cachedData = cacheFile ? readFileSync(cacheFile) : undefined
  } catch {
    cachedData = undefined
  }
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname, __expImport) {${source}\n})`, {filename, cachedData})
  codeCache.set(path.basename(filename), cachedData === undefined ? 'none' : script.cachedDataRejected ? 'rejected' : 'used')
  const dirname = path.dirname(filename)
  const mod = new Module(filename)
  mod.filename = filename
  mod.paths = (Module as unknown as {_nodeModulePaths(dir: string): string[]})._nodeModulePaths(dirname)
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void
  wrapper.call(mod.exports, mod.exports, createRequire(filename), mod, filename, dirname, (specifier: string) => import(specifier))
  mod.loaded = true
  if (process.env[WRITE_CODE_CACHE] && cacheFile) {
    // on exit, so the cache holds every function the command compiled, not only the top level
    process.once('exit', () => {
      const tmp = `${cacheFile}.${process.pid}.tmp`
      writeFileSync(tmp, script.createCachedData())
      renameSync(tmp, cacheFile)
    })
  }
  return mod.exports
}
