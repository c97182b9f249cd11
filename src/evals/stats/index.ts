// Pure statistics for evaluations: no I/O, no clock; randomness only from the caller.
export {wilson, type Interval, type WilsonOptions} from './wilson.js'
export {passAtK, passHatK, meanPassAtK, meanPassHatK, meanOver, type Trials} from './pass-k.js'
export {mcnemarExact, mcnemarPaired, type McNemarResult} from './mcnemar.js'
export {pairedBootstrapDiff, quantile, type BootstrapOptions, type DiffInterval} from './bootstrap.js'
export {seededRandom, type Random} from './prng.js'
export {mean, successRate, meanScoreVector} from './mean.js'
export {normalQuantile, zFor} from './normal.js'
export {pairedTTest, studentCdf, incompleteBeta} from './ttest.js'
