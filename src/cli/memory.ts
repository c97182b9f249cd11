import {Flags} from '../vendor/oclif.js'
import {MEMORY_MODES} from '../evals/runner/memory.js'

/** `--memory-mode` of the commands that run agents (docs/compare.md, "Memory modes"). */
export function memoryModeFlag(defaultMode: string) {
  return {
    'memory-mode': Flags.string({
      description: `${MEMORY_MODES.join(' | ')}: whether the episodes become experience the miner reads (record) and whether recalled knowledge reaches the agent at run time (recall); default ${defaultMode}`,
      helpValue: 'MODE',
    }),
  }
}
