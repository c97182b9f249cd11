import {ParseError} from '../errors/index.js'

/** Parse YAML or JSON text (JSON is YAML 1.2); syntax errors name file, line and column. */
export async function parseYamlOrJson(text: string, file: string): Promise<unknown> {
  const t = text.trimStart()
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      return JSON.parse(text)
    } catch {
      // fall through to the YAML parser, which reports line and column
    }
  }
  const {parseDocument, LineCounter} = await import('../vendor/yaml.js')
  const lc = new LineCounter()
  const doc = parseDocument(text, {lineCounter: lc, prettyErrors: false, uniqueKeys: true})
  const err = doc.errors[0]
  if (err) {
    const pos = err.linePos?.[0] ?? lc.linePos(err.pos[0])
    throw new ParseError(file, err.message.split('\n')[0]!, pos.line, pos.col)
  }
  return doc.toJS({maxAliasCount: 100})
}

/** Parse JSON Lines; blank lines are skipped; errors name the line. */
export function parseJsonLines(text: string, file: string): {line: number; value: unknown}[] {
  const out: {line: number; value: unknown}[] = []
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const s = lines[i]!.trim()
    if (!s) continue
    try {
      out.push({line: i + 1, value: JSON.parse(s)})
    } catch (e) {
      const m = /position (\d+)/.exec((e as Error).message)
      throw new ParseError(file, `invalid JSON: ${(e as Error).message}`, i + 1, m ? Number(m[1]) + 1 : undefined)
    }
  }
  return out
}
