import {existsSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

/**
 * The package's own folder (the built-in benchmark, the schemas and the skills ship with the
 * tool): the nearest folder above this module holding a package.json. Found by walking up,
 * not by a fixed `../..`, because the build bundles dist/ modules into files at different
 * depths (scripts/bundle-commands.mjs).
 */
export const PACKAGE_ROOT = findRoot(path.dirname(fileURLToPath(import.meta.url)))

function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir
    if (path.dirname(dir) === dir) return path.resolve(from, '..')
  }
}
