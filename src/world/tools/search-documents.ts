import {defineTool, ok} from './define.js'
import {tokens} from '../views.js'
import type {Document} from '../types.js'

// documents are immutable: tokenize each one once, not on every search
const indexed = new WeakMap<Document, string[]>()
const wordsOf = (d: Document): string[] => {
  let w = indexed.get(d)
  if (!w) indexed.set(d, (w = tokens(`${d.title} ${d.tags.join(' ')} ${d.body}`)))
  return w
}

export const searchDocuments = defineTool<{query: string}>({
  name: 'search_documents',
  kind: 'read',
  description: 'Full-text search over the internal knowledge base (checklists, policies, how-to guides). Returns up to 3 documents ranked by how many query words they contain, each with id, title and the full text.',
  parameters: {required: ['query'], properties: {query: {type: 'string', minLength: 1, maxLength: 500}}},
  reads: ['documents'],
  writes: [],
  errors: [],
  latencyMs: 150,
  run(tx, {query}) {
    const words = new Set(tokens(query).filter(w => w.length >= 3))
    const scored = Object.values(tx.get('documents'))
      .map(d => ({d, score: wordsOf(d).filter(w => words.has(w)).length}))
      .filter(x => x.score > 0)
      .sort((a, b) => b.score - a.score || (a.d.id < b.d.id ? -1 : 1))
    return ok({documents: scored.slice(0, 3).map(({d}) => ({id: d.id, title: d.title, body: d.body}))})
  },
})
