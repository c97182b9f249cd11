import {createRequire} from 'node:module'
import type * as Core from '@oclif/core'

/**
 * @oclif/core, through one seam: the single-file bundle scripts/vendor.mjs writes next to
 * this module at build time (~50 ms faster to load than the package's ~120 modules), or
 * the package itself when there is no bundle (running from src/). Every import of oclif in
 * the code goes through here, so a process never holds two copies.
 */
function load(): typeof Core {
  const require = createRequire(import.meta.url)
  try {
    return require('./oclif-core.cjs') as typeof Core
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND' || !String((e as Error).message).includes('oclif-core.cjs')) throw e
    return require('@oclif/core') as typeof Core
  }
}

const core = load()
export const {Args, Command, Flags, Help, execute} = core
export type Command = Core.Command
export type Help = Core.Help
export type {Interfaces} from '@oclif/core'
