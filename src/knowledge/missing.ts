/**
 * Required fields left empty, read from the JSON Schema a tool declares for its result (the
 * world's own schema, handed to every agent with the tool specs). A field is required when
 * the schema lists it in `required` and its type does not allow null; `allOf` entries of the
 * form `{if: {properties: {k: {const: v}}}, then: {required: […]}}` add fields required only
 * for some records (an end date for a contractor). Only this subset of JSON Schema is read.
 */
export interface ResultSchema {
  required?: readonly string[]
  properties?: Readonly<Record<string, {type?: string | readonly string[]; const?: unknown}>>
  allOf?: readonly {if?: ResultSchema; then?: ResultSchema}[]
}

const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x)
const nullable = (t: string | readonly string[] | undefined) => t === undefined || t === 'null' || (Array.isArray(t) && t.includes('null'))
const empty = (v: unknown) => v === undefined || v === null || v === ''

function matchesIf(record: Record<string, unknown>, s: ResultSchema): boolean {
  return Object.entries(s.properties ?? {}).every(([k, p]) => !('const' in p) || record[k] === p.const)
}

export function missingFields(record: unknown, schema: ResultSchema): string[] {
  if (!isRecord(record)) return []
  const out: string[] = []
  const check = (s: ResultSchema) => {
    for (const k of s.required ?? []) {
      const type = s.properties?.[k]?.type ?? schema.properties?.[k]?.type
      if (empty(record[k]) && (!nullable(type) || s !== schema) && !out.includes(k)) out.push(k)
    }
  }
  check(schema)
  for (const part of schema.allOf ?? []) if (part.if && part.then && matchesIf(record, part.if)) check(part.then)
  return out
}
