import {sha256Hex} from './digest.js'
import {InvalidInputError} from '../errors/index.js'
import type {ArtifactRef} from './types.generated.js'

/** Content a writer hands over with a draft, too large (or too binary) to be part of the record. */
export interface ArtifactInput {
  /** a file name, no folders */
  name: string
  content: Uint8Array
  media_type?: string
}

// eslint-disable-next-line no-control-regex -- a file name must not hold control characters
const NAME_RE = /^[^/\\\u0000-\u001f\u007f]{1,255}$/
const PATH_RE = /^artifacts\/([0-9a-f]{2})\/([0-9a-f]{64})$/

/** Where an artifact with this SHA-256 (hex) sits in a lane tree. */
export function artifactPath(hex: string): string {
  return `artifacts/${hex.slice(0, 2)}/${hex}`
}

/** Whether a tree path is an artifact's (content-addressed) path. */
export function isArtifactPath(p: string): boolean {
  return PATH_RE.test(p)
}

/**
 * The references of a draft's artifacts, in the order given: name, path and digest of the
 * content, size. Names must be plain file names, distinct within one record.
 */
export function artifactRefs(inputs: readonly ArtifactInput[], where = 'artifacts'): ArtifactRef[] {
  const names = new Set<string>()
  return inputs.map((a, i) => {
    if (typeof a?.name !== 'string' || !NAME_RE.test(a.name)) throw new InvalidInputError(`${where}[${i}]: artifact name ${JSON.stringify(a?.name)} must be a plain file name (no folders or control characters, at most 255 characters)`, {where})
    if (names.has(a.name)) throw new InvalidInputError(`${where}[${i}]: two artifacts are named ${JSON.stringify(a.name)}`, {where})
    names.add(a.name)
    if (!(a.content instanceof Uint8Array)) throw new InvalidInputError(`${where}[${i}]: artifact ${a.name} has no content`, {where})
    const hex = sha256Hex(a.content)
    return {name: a.name, path: artifactPath(hex), digest: `sha256:${hex}`, size: a.content.length, ...(a.media_type ? {media_type: a.media_type} : {})}
  })
}

/** Whether bytes are the content an artifact reference names. */
export function artifactMatches(ref: ArtifactRef, content: Uint8Array): boolean {
  const m = PATH_RE.exec(ref.path)
  return !!m && content.length === ref.size && `sha256:${m[2]}` === ref.digest && sha256Hex(content) === m[2]
}
