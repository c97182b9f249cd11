import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'

/**
 * The ports hold: above the store, modules speak to RecordStore, Workspace and Evaluator.
 * Only the named adapters and git-only commands reach into the git record store, and the
 * loop, the gate, the reports and the projections touch neither it nor git itself.
 */
const SRC = path.join(import.meta.dirname, '../src')

/** may import src/store/git/: an adapter built on it, and commands that exist only for a git store */
const GIT_STORE_USERS = new Set(['store/index.ts', 'workspace/git.ts', 'commands/fsck.ts', 'commands/sync.ts', 'commands/gc.ts'])
/** never import git (src/git/, src/store/git/) nor an adapter of the workspace */
const PORT_ONLY = ['loop/', 'gate/', 'reports/', 'projections/', 'evals/', 'mining/', 'knowledge/', 'trust/', 'attempts/', 'matrix/']

function sources(dir: string): string[] {
  return fs.readdirSync(dir, {withFileTypes: true}).flatMap(e => (e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []))
}

/** the src-relative paths a module imports (static, re-exported and dynamic), resolved */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8')
  const out: string[] = []
  for (const m of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) out.push(path.relative(SRC, path.resolve(path.dirname(file), m[1]!)).replace(/\\/g, '/'))
  return out
}

const files = sources(SRC).map(f => ({rel: path.relative(SRC, f).replace(/\\/g, '/'), imports: importsOf(f)}))

t.test('the scan sees the imports it judges', async t => {
  t.ok(files.length > 100, `${files.length} modules`)
  const ws = files.find(f => f.rel === 'workspace/git.ts')!
  t.ok(ws.imports.some(i => i.startsWith('store/git/')), 'the git workspace adapter imports the git store')
})

t.test('only the named modules above the store import its git adapter', async t => {
  const bad = files.filter(f => !f.rel.startsWith('store/git/') && !GIT_STORE_USERS.has(f.rel) && f.imports.some(i => i.startsWith('store/git/')))
  t.same(bad.map(f => `${f.rel}: ${f.imports.filter(i => i.startsWith('store/git/')).join(', ')}`), [])
})

t.test('the loop, the gate, the reports and the projections speak to ports only', async t => {
  const bad = files.filter(f => PORT_ONLY.some(d => f.rel.startsWith(d)) && f.imports.some(i => i.startsWith('store/git/') || i.startsWith('git/') || i === 'workspace/git.js'))
  t.same(bad.map(f => f.rel), [])
})

t.test('git itself (src/git/) knows nothing of records, stores or workspaces', async t => {
  const bad = files.filter(f => f.rel.startsWith('git/') && f.imports.some(i => !i.startsWith('git/') && !i.startsWith('errors/')))
  t.same(bad.map(f => `${f.rel}: ${f.imports.join(', ')}`), [])
})
