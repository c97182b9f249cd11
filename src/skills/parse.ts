import {markdown} from '../vendor/markdown.js'
// mdast types come with remark-parse (its own dependency); only types are imported
import type {Root, RootContent, List, Nodes} from 'mdast'
import {readFrontmatter} from './frontmatter.js'
import {markerOf, splitLines} from './text.js'
import type {ParsedSkill, SkillItem, SkillSection} from './types.js'

let parser: {parse(text: string): unknown} | undefined
/** remark with GFM, made on the first parse (vendor/markdown.ts) */
function processor(): {parse(text: string): unknown} {
  if (!parser) {
    const {unified, remarkParse, remarkGfm} = markdown()
    parser = unified().use(remarkParse).use(remarkGfm)
  }
  return parser
}

/** The last texts parseSkill parsed, with their parses (at most 64 of up to 256 KiB each; the oldest goes first). */
const parsed = new Map<string, ParsedSkill>()

/**
 * Splits a SKILL.md into frontmatter, preamble and sections. remark finds the structure
 * (headings, lists, items); the parse keeps the raw lines of every part, so that
 * renderSkill gives back the exact text and edits touch only the lines they change.
 *
 * A section starts at each `#`/`##` heading except a leading `#` title; deeper headings
 * stay inside their section.
 */
export function parseSkill(text: string): ParsedSkill {
  // the loop parses the same few texts hundreds of times (the skill on main, each candidate, after
  // every edit): a parse is remembered by its text, and every caller gets a copy of its own
  const known = parsed.get(text)
  if (known) return structuredClone(known)
  const result = parseSkillText(text)
  if (text.length > 256 * 1024) return result
  if (parsed.size >= 64) parsed.delete(parsed.keys().next().value!)
  parsed.set(text, structuredClone(result))
  return result
}

function parseSkillText(text: string): ParsedSkill {
  const lines = splitLines(text)
  const fm = readFrontmatter(lines)
  const offset = fm.lines.length
  const body = lines.slice(offset)
  const tree = processor().parse(body.join('\n')) as Root
  // 0-based index into `body` of a node's first and last line
  const first = (n: RootContent) => n.position!.start.line - 1
  const last = (n: RootContent) => n.position!.end.line - 1

  const nodes = tree.children
  let title: string | undefined
  const heads: {node: RootContent; title: string; depth: number}[] = []
  for (const n of nodes) {
    if (n.type !== 'heading' || n.depth > 2) continue
    if (n.depth === 1 && !title && !heads.length) {
      title = toString(n)
      continue
    }
    heads.push({node: n, title: toString(n).trim(), depth: n.depth})
  }

  const preambleEnd = heads.length ? first(heads[0]!.node) : body.length
  const sections: SkillSection[] = heads.map((h, i) => {
    const start = first(h.node)
    const end = i + 1 < heads.length ? first(heads[i + 1]!.node) : body.length
    const inside = nodes.filter(n => first(n) > start && last(n) < end)
    return {
      title: h.title,
      depth: h.depth,
      line: offset + start + 1,
      lines: body.slice(start, end),
      items: itemsOf(inside.filter((n): n is List => n.type === 'list'), start, body),
    }
  })
  return {
    frontmatter: fm.lines.length ? {lines: fm.lines, data: fm.data} : undefined,
    preamble: body.slice(0, preambleEnd),
    title,
    sections,
  }
}

function itemsOf(lists: List[], sectionStart: number, body: string[]): SkillItem[] {
  const items: SkillItem[] = []
  lists.forEach((list, li) => {
    for (const item of list.children) {
      const start = item.position!.start.line - 1
      items.push({
        index: items.length,
        list: li,
        ordered: Boolean(list.ordered),
        number: list.ordered ? markerOf(body[start] ?? '')?.number : undefined,
        text: toString(item.children[0] ?? item).replace(/\s+/g, ' ').trim(),
        start: start - sectionStart,
        end: item.position!.end.line - sectionStart,
      })
    }
  })
  return items
}

/** Plain text of a node: markdown syntax dropped, inline code and text kept. */
function toString(node: Nodes): string {
  if ('value' in node && typeof node.value === 'string' && node.type !== 'html') return node.value
  if ('children' in node) return (node.children as Nodes[]).map(toString).join(node.type === 'paragraph' || node.type === 'heading' ? '' : ' ')
  return ''
}

/** The text of a parsed skill: the exact input of parseSkill when nothing was changed. */
export function renderSkill(parsed: ParsedSkill): string {
  return [...(parsed.frontmatter?.lines ?? []), ...parsed.preamble, ...parsed.sections.flatMap(s => s.lines)].join('\n')
}

/** Finds a section by title, case- and space-insensitively. */
export function findSection(parsed: ParsedSkill, title: string): SkillSection | undefined {
  const key = sectionKey(title)
  return parsed.sections.find(s => sectionKey(s.title) === key)
}

export function sectionKey(title: string): string {
  return title.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim()
}
