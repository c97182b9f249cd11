import {textLine} from '../records/summary.js'

/** A labelled tree: the shape the text, Markdown and HTML views of a provenance chain share. */
export interface TreeNode {
  label: string
  children?: TreeNode[]
}

/**
 * An indented tree drawn with box characters, one node a line: a label's line breaks and the
 * characters a terminal would act on are escaped (textLine), as every other view does with
 * record text (a knowledge record's claim of two lines printed a forged version header).
 */
export function renderTree(nodes: readonly TreeNode[], prefix = ''): string[] {
  const out: string[] = []
  nodes.forEach((n, i) => {
    const last = i === nodes.length - 1
    out.push(`${prefix}${last ? '└─ ' : '├─ '}${textLine(n.label)}`)
    if (n.children?.length) out.push(...renderTree(n.children, `${prefix}${last ? '   ' : '│  '}`))
  })
  return out
}

/** Roots drawn flush left, their children as a tree below each. */
export function renderForest(roots: readonly TreeNode[]): string {
  return roots.map(r => [textLine(r.label), ...renderTree(r.children ?? [])].join('\n')).join('\n\n')
}
