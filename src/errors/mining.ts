import {ExpError} from './base.js'
import {clipped} from './shown.js'

/**
 * The miner was handed data outside the train split (docs/mining.md: learning and
 * evaluation data never mix). Exit 2: the input is wrong, not the repository.
 */
export class SplitError extends ExpError {
  constructor(what: string, id: string, split: string, message = `${what} ${id} is from the ${split} split; the miner learns from train traces only`) {
    super('E_SPLIT', message, {
      data: {what, id, split},
      hint: 'mine a train run (`exp run train`); validation and held-out traces are for evaluation only',
      exit: 2,
    })
  }
}

/** `--split` asked the miner for another split. */
export function splitRefused(split: string): SplitError {
  return new SplitError('split', split, split, `cannot mine the ${clipped(split)} split: the miner learns from train traces only`)
}
