import {mkdir, rename, writeFile} from 'node:fs/promises'
import {randomUUID} from 'node:crypto'
import {join} from 'node:path'
import {digestOf} from '../../records/digest.js'
import {readRegular} from '../../regular-file.js'

/**
 * A response cache on disk, one JSON file per request digest, sharded by the first two hex
 * digits (`<dir>/3f/3f9a….json`). It is derived data: deleting the folder changes no
 * answer, only the cost of getting it again. Writes are atomic (temp file + rename), so
 * concurrent runners never read half a file; a file we cannot read is a miss.
 */
export const CACHE_FORMAT = 1

/** the largest entry read (a response is a few KB; a larger file is a miss) */
const ENTRY_MAX = 64 * 1024 * 1024

interface Entry {
  format: typeof CACHE_FORMAT
  key: string
  response: unknown
}

export class ResponseCache {
  constructor(readonly dir: string) {}

  /** The key of a request: `sha256:<hex>` of its canonical JSON. */
  static keyOf(request: unknown): string {
    return digestOf(request)
  }

  async get(key: string): Promise<unknown | undefined> {
    try {
      // (only a regular file, of a bounded size: a FIFO at an entry's name waited for a writer)
      const entry = JSON.parse((await readRegular(this.file(key), ENTRY_MAX)).toString('utf8')) as Entry
      return entry.format === CACHE_FORMAT && entry.key === key ? entry.response : undefined
    } catch {
      return undefined
    }
  }

  async put(key: string, response: unknown): Promise<void> {
    const file = this.file(key)
    await mkdir(join(file, '..'), {recursive: true})
    const tmp = `${file}.${randomUUID()}.tmp`
    const entry: Entry = {format: CACHE_FORMAT, key, response}
    await writeFile(tmp, `${JSON.stringify(entry)}\n`)
    await rename(tmp, file)
  }

  private file(key: string): string {
    const hex = key.replace(/^sha256:/, '')
    return join(this.dir, hex.slice(0, 2), `${hex}.json`)
  }
}
