export * from './types.js'
export * from './sink.js'
