import {recordId} from '../records/index.js'

/**
 * Idempotency keys of the contract loop: the same attempt, run or judgement is the same
 * record whatever process writes it, so a rerun after a kill adds nothing already there.
 */
export const attemptKey = (contract: string, lane: string, ordinal: number) => `attempt/${contract}/${lane}/${ordinal}`
/** the baseline of a contract at one commit: shared by every lane and attempt on that base */
export const baselineKey = (contract: string, commit: string) => `baseline/${contract}/${commit}`
export const observationKey = (attempt: string, tree: string, split: string, repetition: number, retry: number) => `observation/${attempt}/${tree}/${split}/${repetition}/${retry}`
export const verdictKey = (observation: string) => `verdict/${observation}`

export const attemptId = (key: string) => recordId('attempt', '', key)
export const observationId = (key: string) => recordId('observation', '', key)
export const verdictId = (observation: string) => recordId('verdict', '', verdictKey(observation))

export const attemptBranch = (id: string) => `exp/attempt/${id}`
