import {readFileSync} from 'node:fs'
import {isUtf8} from 'node:buffer'
import {utf8SequenceAt} from '../records/unicode.js'

/**
 * The command line as the kernel holds it: node decodes each argument as UTF-8 and puts
 * U+FFFD for what is not (`--key $'\xff'` became the key "\ufffd", stored as such), so an
 * argument that is not UTF-8 is found in /proc/self/cmdline (Linux) before any command runs.
 */
export interface BadArgument {
  /** 0-based among the command's own arguments (process.argv.slice(2)) */
  index: number
  /** the flag it is the value of, when the word before it is one (`--key`) */
  flag?: string
  /** the argument with each byte that is not UTF-8 written \xNN */
  shown: string
}

/** The first of the last `words.length` NUL-terminated words of `cmdline` that is not UTF-8 (`words`: those words as node decoded them). */
export function badArgument(cmdline: Buffer, words: readonly string[]): BadArgument | undefined {
  const raw: Buffer[] = []
  let start = 0
  for (let i = 0; i < cmdline.length; i++) {
    if (cmdline[i] !== 0) continue
    raw.push(cmdline.subarray(start, i))
    start = i + 1
  }
  if (start < cmdline.length) raw.push(cmdline.subarray(start))
  // (a process whose command line was rewritten holds other words: nothing is said then)
  if (raw.length < words.length) return undefined
  const own = raw.slice(raw.length - words.length)
  const index = own.findIndex(b => !isUtf8(b))
  if (index < 0) return undefined
  const before = words[index - 1]
  const flag = before !== undefined && before.startsWith('-') && !before.includes('=') ? before : undefined
  return {index, ...(flag ? {flag} : {}), shown: escapeBytes(own[index]!)}
}

/** Bytes as text, each byte of no UTF-8 character (and each control character) as \xNN. */
function escapeBytes(b: Buffer): string {
  let out = ''
  for (let i = 0; i < b.length; ) {
    const n = utf8SequenceAt(b, i)
    if (n > 1 || (n === 1 && b[i]! >= 0x20 && b[i]! < 0x7f)) {
      out += b.toString('utf8', i, i + n)
      i += n
    } else out += `\\x${b[i++]!.toString(16).padStart(2, '0')}`
  }
  return out
}

/** This process's arguments checked (Linux; elsewhere, or when /proc cannot be read, nothing is said). */
export function badProcessArgument(words: readonly string[] = process.argv.slice(2)): BadArgument | undefined {
  if (process.platform !== 'linux' || !words.some(w => w.includes('\ufffd'))) return undefined
  let cmdline: Buffer
  try {
    cmdline = readFileSync('/proc/self/cmdline')
  } catch {
    return undefined
  }
  return badArgument(cmdline, words)
}
