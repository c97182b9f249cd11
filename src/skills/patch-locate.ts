import {PatchConflictError} from '../errors/index.js'
import {findSection} from './parse.js'
import {fold, isBlank} from './text.js'
import type {ParsedSkill, SkillItem, SkillSection} from './types.js'

/** Where an anchor points: a whole top-level list item, or one plain line (section-local index). */
export type Target = {item: SkillItem; line?: undefined} | {item?: undefined; line: number}

export function sectionOrConflict(parsed: ParsedSkill, title: string, edit: number): SkillSection {
  const s = findSection(parsed, title)
  if (!s) throw new PatchConflictError('section-missing', title, undefined, edit)
  return s
}

/**
 * Finds the one line or list item of a section whose text equals the anchor (compared by
 * `fold`: marker, case and spacing ignored). Matching by text and not by line number is
 * what lets a patch apply to a base where other lines moved; zero or several matches mean
 * the context is gone, and the patch must not guess.
 */
export function locate(section: SkillSection, anchor: string, edit: number): Target {
  const key = fold(anchor)
  const items = section.items.filter(it => {
    const own = section.lines.slice(it.start, it.end)
    return fold(it.text) === key || fold(own[0] ?? '') === key || fold(own.join(' ')) === key
  })
  const firstLines = new Set(section.items.map(it => it.start))
  const lines = section.lines.map((l, i) => i).filter(i => i > 0 && !firstLines.has(i) && !isBlank(section.lines[i]) && fold(section.lines[i]!) === key)
  const found: Target[] = [...items.map(item => ({item})), ...lines.map(line => ({line}))]
  if (found.length === 1) return found[0]!
  throw new PatchConflictError(found.length ? 'anchor-ambiguous' : 'anchor-missing', section.title, anchor, edit)
}

/** Section-local index just after the last non-blank line (1 for a section with a heading only). */
export function contentEnd(section: SkillSection): number {
  let i = section.lines.length
  while (i > 1 && isBlank(section.lines[i - 1])) i--
  return i
}
