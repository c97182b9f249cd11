import {createRequire} from 'node:module'

const require = createRequire(import.meta.url)

/**
 * A dependency from its single-file bundle next to this module (`dist/vendor/<file>`,
 * written by scripts/vendor.mjs at build time), or from the package itself when there is
 * no bundle (running from src/).
 */
export function bundled<T>(file: string, pkg: string): T {
  try {
    return require(`./${file}`) as T
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND' || !String((e as Error).message).includes(file)) throw e
    return require(pkg) as T
  }
}
