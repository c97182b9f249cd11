export {runEpisode, gradeEpisode, type EpisodeOptions, type EpisodeResult, type EpisodeAction} from './episode.js'
export {runSplit, type SplitOptions, type SplitResult, type ScenarioRate} from './split.js'
export {SYSTEM_PROMPT, DEFAULT_MAX_STEPS, episodeSeed} from './prompt.js'
export * from './grader/index.js'
