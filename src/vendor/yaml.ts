import type * as Y from 'yaml'
import {bundled} from './load.js'

/**
 * yaml, through one seam: the bundle scripts/vendor.mjs builds (~30 ms faster to load than
 * the package's modules), or the package when there is none. Types come from 'yaml'.
 */
const yaml = bundled<typeof Y>('yaml.cjs', 'yaml')
export const {Document, LineCounter, parseDocument, isMap, isPair, isScalar, isSeq, parse, stringify} = yaml
export type Document<C extends Y.Node = Y.Node, S extends boolean = true> = Y.Document<C, S>
export type LineCounter = Y.LineCounter
export type {Node} from 'yaml'
