// The miner (docs/mining.md): train traces + verifications → evidence → knowledge. Pure.
export {mineEvidence, usable} from './evidence.js'
export {mergeKnowledge, supersededIds, contradicts, conditionOf, type MergeOptions, type Identified} from './knowledge.js'
export {mineFromLedger, mineFromLedgerAsync, type LedgerMineOptions, type LedgerMineResult} from './ledger.js'
export {draftClaimTexts, type DraftOptions} from './draft.js'
export {CONFIDENCE_FORMULA, confidenceOf} from './score.js'
export {ruleKey, slugOf, triggerOf} from './signature.js'
export {MINE_DEFAULTS, MINER, type MineOptions, type MinedTrace} from './types.js'
export {TRACE_BUDGET, cutWarning, type CutTrace} from './view.js'
