import {PatchConflictError} from '../errors/index.js'
import {findSection, parseSkill, renderSkill} from './parse.js'
import {contentEnd, locate, sectionOrConflict} from './patch-locate.js'
import {eolSuffix, isBlank, markerOf, stripMarker} from './text.js'
import type {ParsedSkill, SkillEdit, SkillItem, SkillSection} from './types.js'

/** A list to renumber after an edit: a line inside it, and the number its first item keeps. */
interface Renumber {
  probe: number
  from: number
}

/** Applies one edit and returns the re-parsed result; throws PatchConflictError before changing anything. */
export function applyEdit(parsed: ParsedSkill, edit: SkillEdit, index: number): ParsedSkill {
  if (edit.op === 'add_section') return addSection(parsed, edit, index)
  const s = sectionOrConflict(parsed, edit.section, index)
  const lines = [...s.lines]
  const eol = eolSuffix(lines)
  let renumber: Renumber | undefined
  // new lines next to a list item become items of that list (same marker and indent)
  const place = (at: number, deleteCount: number, text: string[], like?: SkillItem) => {
    const added = like ? asItems(text, lines[like.start]!, eol) : text.map(l => l + eol)
    lines.splice(at, deleteCount, ...added)
    if (like?.ordered) renumber = {probe: at, from: firstNumber(s, like)}
  }
  switch (edit.op) {
    case 'insert_after':
    case 'insert_before': {
      const t = locate(s, edit.anchor, index)
      const after = edit.op === 'insert_after'
      if (t.item) place(after ? t.item.end : t.item.start, 0, edit.lines, t.item)
      else place(after ? t.line + 1 : t.line, 0, edit.lines)
      break
    }
    case 'append': {
      const end = contentEnd(s)
      const last = s.items.at(-1)
      // a section that ends with a list grows the list; otherwise the lines go after the text
      place(end, 0, edit.lines, last && last.end >= end ? last : undefined)
      break
    }
    case 'replace': {
      const t = locate(s, edit.anchor, index)
      if (t.item) place(t.item.start, t.item.end - t.item.start, edit.lines, t.item)
      else place(t.line, 1, edit.lines)
      break
    }
    case 'remove': {
      const t = locate(s, edit.anchor, index)
      if (!t.item) {
        lines.splice(t.line, 1)
        break
      }
      lines.splice(t.item.start, t.item.end - t.item.start)
      const siblings = s.items.filter(i => i.list === t.item.list && i !== t.item)
      const next = siblings.find(i => i.start > t.item.start)
      const probe = next ? t.item.start : siblings.at(-1)?.start
      if (t.item.ordered && probe !== undefined) renumber = {probe, from: firstNumber(s, t.item)}
    }
  }
  let out = reparse(parsed, s, lines)
  if (renumber) out = renumbered(out, s.title, renumber)
  return out
}

function firstNumber(s: SkillSection, item: SkillItem): number {
  return s.items.find(i => i.list === item.list)?.number ?? 1
}

function asItems(text: string[], like: string, eol: string): string[] {
  const m = markerOf(like)!
  const gap = /[ \t]*$/.exec(m.prefix)![0] || ' '
  const mark = m.number === undefined ? m.delimiter : `${m.number}${m.delimiter}`
  return text.filter(l => !isBlank(l)).map(l => `${m.indent}${mark}${gap}${stripMarker(l.trim())}${eol}`)
}

function reparse(parsed: ParsedSkill, section: SkillSection, lines: string[]): ParsedSkill {
  return parseSkill(renderSkill({...parsed, sections: parsed.sections.map(s => (s === section ? {...s, lines} : s))}))
}

/** Rewrites the numbers of one ordered list to from, from+1, ... (only the digits change). */
function renumbered(parsed: ParsedSkill, title: string, r: Renumber): ParsedSkill {
  const s = findSection(parsed, title)
  const hit = s?.items.find(i => r.probe >= i.start && r.probe < i.end)
  if (!s || !hit?.ordered) return parsed
  const lines = [...s.lines]
  s.items.filter(i => i.list === hit.list).forEach((item, k) => {
    lines[item.start] = lines[item.start]!.replace(/^(\s*)\d+/, `$1${r.from + k}`)
  })
  return reparse(parsed, s, lines)
}

/** A new `##` section after the named one (default: at the end), kept apart by one blank line. */
function addSection(parsed: ParsedSkill, edit: Extract<SkillEdit, {op: 'add_section'}>, index: number): ParsedSkill {
  if (findSection(parsed, edit.section)) throw new PatchConflictError('section-exists', edit.section, undefined, index)
  const after = edit.after === undefined ? parsed.sections.at(-1) : sectionOrConflict(parsed, edit.after, index)
  const all = renderSkill(parsed).split('\n')
  const eol = eolSuffix(all)
  const depth = parsed.sections[0]?.depth ?? 2
  const block = [`${'#'.repeat(depth)} ${edit.section.trim()}`, ...edit.lines].map(l => l + eol)
  const at = after ? after.line - 1 + after.lines.length : all.length
  if (at < all.length) {
    const sep = isBlank(all[at - 1]) ? [] : [eol]
    all.splice(at, 0, ...sep, ...block, eol)
    return parseSkill(all.join('\n'))
  }
  // at the end: keep the file's final newline (the split leaves it as a last empty line)
  const finalNewline = all.at(-1) === ''
  const body = finalNewline ? all.slice(0, -1) : all
  const sep = body.length && !isBlank(body.at(-1)) ? [eol] : []
  return parseSkill([...body, ...sep, ...block, ...(finalNewline ? [''] : [])].join('\n'))
}
