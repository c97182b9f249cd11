import {createRequire} from 'node:module'
import type * as Y from 'yaml'

/**
 * yaml, through one seam: the single-file bundle scripts/vendor.mjs writes next to this
 * module at build time (~30 ms faster to load than the package's modules), or the package
 * itself when there is no bundle (running from src/). Types come from 'yaml' directly.
 */
function load(): typeof Y {
  const require = createRequire(import.meta.url)
  try {
    return require('./yaml.cjs') as typeof Y
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND' || !String((e as Error).message).includes('yaml.cjs')) throw e
    return require('yaml') as typeof Y
  }
}

const yaml = load()
export const {Document, LineCounter, parseDocument, isMap, isPair, isScalar, isSeq, parse, stringify} = yaml
export type Document<C extends Y.Node = Y.Node, S extends boolean = true> = Y.Document<C, S>
export type LineCounter = Y.LineCounter
export type {Node} from 'yaml'
