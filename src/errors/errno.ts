/**
 * What the file system said, in words, by errno code: the one table of them, for the errors
 * that name a file (write-output.ts), standard output (cli/broken-pipe.ts) or the disk
 * (cli/base.ts). Undefined for a code not here.
 */
export function errnoWords(code: unknown): string | undefined {
  return typeof code === 'string' && Object.hasOwn(WORDS, code) ? WORDS[code] : undefined
}

const WORDS: Record<string, string> = {
  EISDIR: 'it is a folder',
  ENOTDIR: 'a file is in the way of a folder on its path',
  EEXIST: 'a file is in the way of a folder on its path',
  EACCES: 'permission denied',
  EPERM: 'the operation is not permitted',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is exceeded',
  EFBIG: 'the file is too large',
  EIO: 'an input/output error',
  EBADF: 'it is not open for writing',
  ENAMETOOLONG: 'the name is too long',
  ELOOP: 'too many symbolic links on its path',
}

/** Codes of a device that takes no more (full, over quota, failing, read-only): the user's to fix, not a bug. */
export const DEVICE_CODES: ReadonlySet<string> = new Set(['ENOSPC', 'EDQUOT', 'EFBIG', 'EIO', 'EROFS'])
