import {closeSync, readdirSync, readFileSync} from 'node:fs'

/** O_CLOEXEC as /proc/self/fdinfo shows it (octal flags) */
const CLOEXEC = 0o2000000

let closed = false

/**
 * Close the descriptors this process inherited open without close-on-exec (from whoever started
 * it: a shell's `exec 200<.git/exp`, a job runner's pipe): every child would inherit them in
 * turn, and an agent or evaluator in its sandbox read the repository's git dir, and the key in
 * it, through /proc/self/fd/200 while every path to it was hidden. Node and libuv open their own
 * with close-on-exec; exp uses none it inherited beyond stdin, stdout and stderr. Once a process
 * (what is not inherited at the start is never inherited later), on Linux only (fdinfo).
 */
export function closeInheritedFds(): void {
  if (closed) return
  closed = true
  let fds: string[]
  try {
    fds = readdirSync('/proc/self/fdinfo')
  } catch {
    return
  }
  for (const name of fds) {
    const fd = Number(name)
    if (!Number.isInteger(fd) || fd < 3) continue
    try {
      const flags = /^flags:\s*([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))?.[1]
      if (flags !== undefined && (parseInt(flags, 8) & CLOEXEC) === 0) closeSync(fd)
    } catch {
      // gone meanwhile, or not ours to close
    }
  }
}
