import {Args} from '../vendor/oclif.js'

const RECORD_ID_ARGS = new WeakSet<object>()

/**
 * A positional argument naming a record by its id or a unique prefix of it. An empty one is
 * left to records/prefix.ts, whose error says which kind of id is wanted and where to copy
 * one (ExpCommand.parse refuses every other empty argument itself).
 */
export function recordIdArg(description: string) {
  const arg = Args.string({description, required: true})
  RECORD_ID_ARGS.add(arg)
  return arg
}

/** Whether `arg` (a command's argument definition) was made by recordIdArg. */
export function isRecordIdArg(arg: object | undefined): boolean {
  return arg !== undefined && RECORD_ID_ARGS.has(arg)
}
