import type * as Core from '@oclif/core'
import {bundled} from './load.js'

/**
 * @oclif/core, through one seam: the bundle scripts/vendor.mjs builds (~50 ms faster to
 * load than the package's ~120 modules), or the package when there is none. Every import
 * of oclif in the code goes through here, so a process never holds two copies.
 */
const core = quietly(() => bundled<typeof Core>('oclif-core.cjs', '@oclif/core'))

/**
 * Loading @oclif/core checks the node version against oclif's own package.json `engines`
 * (semver, ~7 ms); exp checks its own (package.json `engines`, npm), so skip oclif's.
 */
function quietly<T>(load: () => T): T {
  const key = 'OCLIF_DISABLE_ENGINE_WARNING'
  const before = process.env[key]
  process.env[key] = '1'
  try {
    return load()
  } finally {
    if (before === undefined) delete process.env[key]
    else process.env[key] = before
  }
}
export const {Args, Command, Flags, Help, execute} = core
export type Command = Core.Command
export type Help = Core.Help
export type {Interfaces} from '@oclif/core'
