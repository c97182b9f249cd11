import {renderRule, type Rule} from '../knowledge/index.js'

/**
 * A mined pattern as the terminal shows it: the rule in words (`Before \`complete_offboarding\`,
 * call …`), not its key (`missing_check:before:complete_offboarding<…>`). From the evidence's
 * rule when the miner gave one, else its description up to the counts (the miner writes it
 * from the rule or the sequence it saw), else the key itself. The loop's dashboard, the
 * report and `exp provenance` all use this.
 */
export function ruleText(e: {rule?: unknown; description?: string; signature: string}): string {
  if (e.rule && typeof e.rule === 'object') {
    try {
      const text = renderRule(e.rule as Rule) as string | undefined
      if (typeof text === 'string' && text) return text
    } catch {
      // a rule of another miner's making: fall through to its description
    }
  }
  const d = e.description?.split(/ Runs that followed it | in \d+ failing run\(s\)/)[0]?.trim()
  return d || e.signature
}
