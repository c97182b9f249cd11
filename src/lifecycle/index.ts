export * from './claim.js'
export * from './release.js'
export * from './retire.js'
export {findHypothesis} from './lookup.js'
