import fs from 'node:fs'
import git from 'isomorphic-git'
import {CorruptObjectError} from '../../errors/index.js'
import type {ObjectType} from './objects.js'
import {CatFileBatch} from './native.js'

/** Reads git objects by id. Two adapters: isomorphic-git (in process) and native `git cat-file --batch`. */
export interface ObjectReader {
  read(oid: string): Promise<{type: ObjectType; data: Buffer}>
  close(): Promise<void>
}

export class IsoReader implements ObjectReader {
  /** one shared isomorphic-git cache per process (TOOLCHAIN.md: without it packed reads are ~900x slower) */
  static readonly cache: object = {}
  constructor(private readonly gitdir: string) {}

  async read(oid: string): Promise<{type: ObjectType; data: Buffer}> {
    try {
      const o = await git.readObject({fs, gitdir: this.gitdir, oid, format: 'content', cache: IsoReader.cache})
      return {type: o.type as ObjectType, data: Buffer.from(o.object as Uint8Array)}
    } catch (e) {
      throw new CorruptObjectError('object', `${oid}: ${(e as Error).message}`, {oid})
    }
  }

  async close(): Promise<void> {}
}

export class NativeReader implements ObjectReader {
  private batch: CatFileBatch | undefined
  constructor(private readonly gitdir: string) {}

  read(oid: string): Promise<{type: ObjectType; data: Buffer}> {
    this.batch ??= new CatFileBatch(this.gitdir)
    return this.batch.read(oid)
  }

  async close(): Promise<void> {
    await this.batch?.close()
    this.batch = undefined
  }
}
