import {createHash} from 'node:crypto'
import {canonicalJson} from './canonical.js'

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex')
}

/** `sha256:<hex>` of the canonical JSON of a value. */
export function digestOf(value: unknown): string {
  return `sha256:${sha256Hex(canonicalJson(value))}`
}

/** The id git gives a blob with these bytes (what `git hash-object` prints): names a file's exact content. */
export function gitBlobId(data: Uint8Array): string {
  return createHash('sha1').update(`blob ${data.length}\0`).update(data).digest('hex')
}
