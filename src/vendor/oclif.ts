import type * as Core from '@oclif/core'
import {bundled} from './load.js'

/**
 * @oclif/core, through one seam: the bundle scripts/vendor.mjs builds (~50 ms faster to
 * load than the package's ~120 modules), or the package when there is none. Every import
 * of oclif in the code goes through here, so a process never holds two copies.
 */
const core = bundled<typeof Core>('oclif-core.cjs', '@oclif/core')
export const {Args, Command, Flags, Help, execute} = core
export type Command = Core.Command
export type Help = Core.Help
export type {Interfaces} from '@oclif/core'
