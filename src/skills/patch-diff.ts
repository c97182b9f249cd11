import {createHash} from 'node:crypto'
import DiffMatchPatch from 'diff-match-patch'
import type {PatchSize} from './types.js'

/** One line of a line-mode diff. `eol` is false only for a last line without a newline. */
interface LineOp {
  op: ' ' | '-' | '+'
  text: string
  eol: boolean
}

const CONTEXT = 3

/** Line-mode diff with diff-match-patch (lines mapped to characters, then diffed). */
function lineOps(a: string, b: string): LineOp[] {
  const dmp = new DiffMatchPatch()
  // no deadline: a timed-out diff depends on machine speed, and diffs are stored in records
  dmp.Diff_Timeout = 0
  const {chars1, chars2, lineArray} = dmp.diff_linesToChars_(a, b)
  const diffs = dmp.diff_main(chars1, chars2, false)
  dmp.diff_charsToLines_(diffs, lineArray)
  const ops: LineOp[] = []
  for (const [kind, chunk] of diffs) {
    const op = kind === 0 ? ' ' : kind < 0 ? '-' : '+'
    const parts = chunk.split('\n')
    const last = parts.pop()!
    for (const text of parts) ops.push({op, text, eol: true})
    if (last !== '') ops.push({op, text: last, eol: false})
  }
  return ops
}

/** Lines added, removed and changed: in each run of changes, paired -/+ lines count as changed. */
export function diffSize(a: string, b: string): PatchSize {
  const size: PatchSize = {added: 0, removed: 0, changed: 0}
  let del = 0
  let ins = 0
  const flush = () => {
    const changed = Math.min(del, ins)
    size.changed += changed
    size.added += ins - changed
    size.removed += del - changed
    del = ins = 0
  }
  for (const o of lineOps(a, b)) {
    if (o.op === '-') del++
    else if (o.op === '+') ins++
    else flush()
  }
  flush()
  return size
}

const blobId = (text: string) => createHash('sha1').update(`blob ${Buffer.byteLength(text)}\0`).update(text).digest('hex')

const range = (start: number, len: number) => (len === 1 ? `${start}` : `${len === 0 ? start - 1 : start},${len}`)

/**
 * A unified diff exactly as `git diff` prints it (3 lines of context, `index` line with
 * blob ids, the enclosing Markdown heading after `@@` like git's funcname), so it can be
 * reviewed in a pull request and checked with `git apply`. Empty when nothing changed.
 */
export function unifiedDiff(a: string, b: string, file = 'SKILL.md'): string {
  if (a === b) return ''
  const ops = lineOps(a, b)
  // 1-based old/new line number of each op (the next line number for the side it lacks)
  const oldNo: number[] = []
  const newNo: number[] = []
  let o = 1
  let n = 1
  for (const op of ops) {
    oldNo.push(o)
    newNo.push(n)
    if (op.op !== '+') o++
    if (op.op !== '-') n++
  }
  const oldLines = ops.filter(x => x.op !== '+').map(x => x.text)
  const changes = ops.map((x, i) => (x.op === ' ' ? -1 : i)).filter(i => i >= 0)
  const groups: number[][] = []
  for (const i of changes) {
    const g = groups.at(-1)
    if (g && i - g.at(-1)! - 1 <= 2 * CONTEXT) g.push(i)
    else groups.push([i])
  }
  const out = [`diff --git a/${file} b/${file}`, `index ${blobId(a).slice(0, 7)}..${blobId(b).slice(0, 7)} 100644`, `--- a/${file}`, `+++ b/${file}`]
  for (const g of groups) {
    const from = Math.max(0, g[0]! - CONTEXT)
    const to = Math.min(ops.length, g.at(-1)! + 1 + CONTEXT)
    const slice = ops.slice(from, to)
    const oldLen = slice.filter(x => x.op !== '+').length
    const newLen = slice.filter(x => x.op !== '-').length
    const heading = oldLines.slice(0, oldNo[from]! - 1).reverse().find(l => /^#{1,6}\s/.test(l))
    out.push(`@@ -${range(oldNo[from]!, oldLen)} +${range(newNo[from]!, newLen)} @@${heading ? ` ${heading.replace(/\r$/, '')}` : ''}`)
    for (const x of slice) {
      out.push(`${x.op}${x.text}`)
      if (!x.eol) out.push('\\ No newline at end of file')
    }
  }
  return `${out.join('\n')}\n`
}
