/** A labelled tree: the shape the text, Markdown and HTML views of a provenance chain share. */
export interface TreeNode {
  label: string
  children?: TreeNode[]
}

/** An indented tree drawn with box characters, one node a line. */
export function renderTree(nodes: readonly TreeNode[], prefix = ''): string[] {
  const out: string[] = []
  nodes.forEach((n, i) => {
    const last = i === nodes.length - 1
    out.push(`${prefix}${last ? '└─ ' : '├─ '}${n.label}`)
    if (n.children?.length) out.push(...renderTree(n.children, `${prefix}${last ? '   ' : '│  '}`))
  })
  return out
}

/** Roots drawn flush left, their children as a tree below each. */
export function renderForest(roots: readonly TreeNode[]): string {
  return roots.map(r => [r.label, ...renderTree(r.children ?? [])].join('\n')).join('\n\n')
}
