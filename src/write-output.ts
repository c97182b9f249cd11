import {randomBytes} from 'node:crypto'
import {mkdir, rename, rm, writeFile} from 'node:fs/promises'
import path from 'node:path'

/**
 * Write a result file (a report, a comment, JUnit XML) whole: into a new file beside it, then
 * renamed over it. A rename replaces what is at the name, a symbolic link included, and never
 * writes through it: a repository (or a pull request checked out in CI) that holds
 * `results/report.md -> ~/.bashrc` or `exp-gate.md -> .git/config` cannot make exp overwrite
 * that file. A reader never sees half a file. Missing folders on the way are made (outputPath
 * has checked the path: no link on the way in the work tree, nothing of git's).
 */
export async function writeOutputFile(file: string, data: string | Buffer): Promise<void> {
  await mkdir(path.dirname(file), {recursive: true})
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`)
  try {
    // wx: created here, never an existing file or link
    await writeFile(tmp, data, {flag: 'wx'})
    await rename(tmp, file)
  } catch (e) {
    await rm(tmp, {force: true})
    throw e
  }
}
