import path from 'node:path'
import type {Problem} from '../scenarios/types.js'
import {contractFiles, loadContracts, parseContract} from './load.js'
import {readWorkFile} from '../work-file.js'
import {NotFoundError} from '../errors/index.js'
import {existsSync} from 'node:fs'
import {CONTRACTS_DIR} from './load.js'
import {clipped} from '../errors/shown.js'

export interface ContractLintReport {
  contracts: {name: string; file: string; ok: boolean}[]
  problems: Problem[]
}

/** `exp contract lint [NAME]`: every contract of the work tree (or one), with file:line problems. */
export async function lintContracts(root: string, name?: string): Promise<ContractLintReport> {
  let parsed
  if (name) {
    const file = [`${name}.yaml`, `${name}.yml`].map(n => path.join(root, CONTRACTS_DIR, n)).find(f => existsSync(f))
    if (!file) throw new NotFoundError('contract', name, `write ${CONTRACTS_DIR}/${clipped(name)}.yaml (docs/contracts.md)`)
    parsed = [parseContract((await readWorkFile(file)).toString('utf8'), path.relative(root, file))]
  } else {
    if (!(await contractFiles(root)).length) throw new NotFoundError('contracts', `${CONTRACTS_DIR}/*.yaml`, 'write one (docs/contracts.md), or run `exp init --example tuning`')
    parsed = await loadContracts(root)
  }
  return {contracts: parsed.map(p => ({name: path.basename(p.file).replace(/\.ya?ml$/, ''), file: p.file, ok: !p.problems.length})), problems: parsed.flatMap(p => p.problems)}
}
