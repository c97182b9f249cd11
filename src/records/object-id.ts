import {createHash} from 'node:crypto'

export type ObjectType = 'blob' | 'tree' | 'commit' | 'tag'

/**
 * The id git gives content of a type: a pure function of the bytes, used as an identity
 * (a skill's blob, a dataset's tree) by code that must not depend on the git adapter.
 */
export function hashObject(type: ObjectType, data: Uint8Array): string {
  return createHash('sha1').update(`${type} ${data.length}\0`).update(data).digest('hex')
}
