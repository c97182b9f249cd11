import type {Ablation} from '../matrix/ablate.js'

/**
 * The notes the views read as data: what `exp compare`, `exp gain` and `exp ablate` record
 * (a note's text, JSON after a head), each read by one typed reader that checks the shape of
 * every field a view uses before any view uses it. A note is text any lane can write: a field
 * of another type stopped `exp report` for every clone ("s.replace is not a function"), or
 * put unescaped text into report.html. A reader answers `undefined` for a note that is not of
 * its kind, the note's fields, or the first problem (a path and what is wrong with it): the
 * views skip such a note and say so, naming it (`SkippedNote`).
 */
export type NoteRead<T> = {value: T} | {problem: string}

/** A note a view passed over as malformed: its id and the first problem found. */
export interface SkippedNote {
  note: string
  problem: string
}

/** A check of one value at a path (`arms[0].mode`): the problem, or undefined when it has the shape. */
type Shape = (x: unknown, at: string) => string | undefined

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x)
const show = (at: string) => at || 'the note'

const text: Shape = (x, at) => (typeof x === 'string' ? undefined : `${show(at)} is not a string`)
const number: Shape = (x, at) => (typeof x === 'number' && Number.isFinite(x) ? undefined : `${show(at)} is not a number`)
const count: Shape = (x, at) => (Number.isSafeInteger(x) && (x as number) >= 0 ? undefined : `${show(at)} is not a whole number`)
const positive: Shape = (x, at) => (Number.isSafeInteger(x) && (x as number) >= 1 ? undefined : `${show(at)} is not a whole number from 1`)
const flag: Shape = (x, at) => (typeof x === 'boolean' ? undefined : `${show(at)} is not true or false`)
const oneOf =
  (...values: readonly string[]): Shape =>
  (x, at) =>
    typeof x === 'string' && values.includes(x) ? undefined : `${show(at)} is not one of ${values.join(', ')}`
const orNull =
  (s: Shape): Shape =>
  (x, at) =>
    x === null ? undefined : s(x, at)
const interval: Shape = (x, at) => (Array.isArray(x) && x.length === 2 ? (number(x[0], `${at}[0]`) ?? number(x[1], `${at}[1]`)) : `${show(at)} is not an interval [low, high]`)
const list =
  (item: Shape, o: {min?: number} = {}): Shape =>
  (x, at) => {
    if (!Array.isArray(x)) return `${show(at)} is not a list`
    if (x.length < (o.min ?? 0)) return `${show(at)} is empty`
    for (let i = 0; i < x.length; i++) {
      const p = item(x[i], `${at}[${i}]`)
      if (p) return p
    }
    return undefined
  }
/** An object with these fields (`optional`: checked when present); other fields are not read. */
const fields =
  (required: Record<string, Shape>, optional: Record<string, Shape> = {}): Shape =>
  (x, at) => {
    if (!isObject(x)) return `${show(at)} is not an object`
    const dot = (k: string) => (at ? `${at}.${k}` : k)
    for (const [k, s] of Object.entries(required)) {
      if (!Object.hasOwn(x, k)) return `${dot(k)} is missing`
      const p = s(x[k], dot(k))
      if (p) return p
    }
    for (const [k, s] of Object.entries(optional)) {
      if (!Object.hasOwn(x, k) || x[k] === undefined) continue
      const p = s(x[k], dot(k))
      if (p) return p
    }
    return undefined
  }
/** An object whose every field has one shape (a gain side's metrics). */
const each =
  (value: Shape): Shape =>
  (x, at) => {
    if (!isObject(x)) return `${show(at)} is not an object`
    for (const [k, v] of Object.entries(x)) {
      const p = value(v, `${at}.${k}`)
      if (p) return p
    }
    return undefined
  }

function readJson<T>(json: string, shape: Shape): NoteRead<T> {
  let value: unknown
  try {
    value = JSON.parse(json)
  } catch {
    return {problem: 'its JSON does not parse'}
  }
  const problem = shape(value, '')
  return problem ? {problem} : {value: value as T}
}

// `exp compare` (src/loop/compare/run.ts): the arms, and the paired tests and verdicts as run

export interface CompareArmNote {
  arm: string
  mode: string
  episodes: number
  evaluation: string
  namespace: string
}

export interface CompareNote {
  arms: CompareArmNote[]
  hypotheses?: {id: string; verdict: string; evidence: string}[]
  pairs?: {a: string; b: string; diff: number; mcnemar_p: number; bootstrap_ci: [number, number]}[]
}

const COMPARE = fields(
  {arms: list(fields({arm: text, mode: text, episodes: count, evaluation: text, namespace: text}), {min: 1})},
  {
    hypotheses: list(fields({id: text, verdict: text, evidence: text})),
    pairs: list(fields({a: text, b: text, diff: number, mcnemar_p: number, bootstrap_ci: interval})),
  },
)

// `exp gain` (src/loop/gain/run.ts): each side, and the paired test as run

export interface GainSideNote {
  mode: string
  namespace: string
  evaluation: string
  /** the learning metrics (src/loop/gain/metrics.ts): each a number, or null when there is nothing to count */
  metrics: Record<string, number | null>
}

export interface GainNote {
  closed_loop: GainSideNote
  off: GainSideNote
  ci?: [number, number]
  mcnemar_p?: number
  /** how many paired episodes */
  pairs?: number
}

const SIDE = fields({mode: text, namespace: text, evaluation: text, metrics: each(orNull(number))})
const GAIN = fields({closed_loop: SIDE, off: SIDE}, {ci: interval, mcnemar_p: number, pairs: count})

/** The head of a compare or gain note: `compare <id>: {…}` on lane `cmp-<id>`, `gain <id>: {…}` on lane `gain-<id>`. */
const RESEARCH_NOTE = /^(compare|gain) ([0-9a-f]{12}): (\{[\s\S]*\})$/
export const RESEARCH_LANE = {compare: 'cmp-', gain: 'gain-'} as const

/**
 * A compare or gain note on the lane of its id: undefined when the note is not one (another
 * head, another lane), else its fields or the first problem with them.
 */
export function readResearchNote(kind: 'compare', lane: string, body: string): NoteRead<CompareNote & {id: string}> | undefined
export function readResearchNote(kind: 'gain', lane: string, body: string): NoteRead<GainNote & {id: string}> | undefined
export function readResearchNote(kind: 'compare' | 'gain', lane: string, body: string): NoteRead<(CompareNote | GainNote) & {id: string}> | undefined
export function readResearchNote(kind: 'compare' | 'gain', lane: string, body: string): NoteRead<(CompareNote | GainNote) & {id: string}> | undefined {
  const m = RESEARCH_NOTE.exec(body)
  if (!m || m[1] !== kind || lane !== `${RESEARCH_LANE[kind]}${m[2]}`) return undefined
  const read = readJson<CompareNote | GainNote>(m[3]!, kind === 'compare' ? COMPARE : GAIN)
  return 'problem' in read ? {problem: `a malformed ${kind} note (${read.problem})`} : {value: {...read.value, id: m[2]!}}
}

// `exp ablate` (src/matrix/ablate.ts): the credits of one SKILL.md blob

export type AblationNoteBody = Omit<Ablation, 'path' | 'note' | 'recorded' | 'proposal' | 'no_proposal'>

/** What every ablation note's text begins with. */
export const ABLATION_PREFIX = '{"format":"ablation@1"'

const SPLITS = ['validation', 'holdout'] as const
const SPLIT_CREDIT = fields({credit: number, ci: interval, wins: count, losses: count, episodes: count, rate: number, evaluation: text})
const BASELINE = fields({evaluation: text, rate: number, passed: count, total: count, ci: interval}, {commit: text})
const UNIT = fields(
  {id: text, kind: oneOf('rule', 'patch'), lines: list(positive, {min: 1}), text: list(text, {min: 1}), credit: fields({}, {validation: SPLIT_CREDIT, holdout: SPLIT_CREDIT}), removal: flag},
  {rule: text, proposal: text, version: positive},
)
const ABLATION = fields({
  skill: text,
  version: positive,
  commit: text,
  blob: text,
  agent: text,
  seed: count,
  repeat: positive,
  splits: list(oneOf(...SPLITS), {min: 1}),
  baseline: fields({}, {validation: BASELINE, holdout: BASELINE}),
  units: list(UNIT),
}, {candidates: list(text)})

/** An ablation note: undefined when the note is not one, else its fields or the first problem with them. */
export function readAblationNote(body: string): NoteRead<AblationNoteBody> | undefined {
  if (!body.startsWith(ABLATION_PREFIX)) return undefined
  const read = readJson<AblationNoteBody>(body, ABLATION)
  const n = 'value' in read ? read.value : undefined
  const bad = n ? n.units.findIndex(u => u.text.length !== u.lines.length) : -1
  const problem = 'problem' in read ? read.problem : new Set(n!.splits).size !== n!.splits.length ? 'splits repeat' : bad >= 0 ? `units[${bad}] has ${n!.units[bad]!.lines.length} line(s) and ${n!.units[bad]!.text.length} text(s)` : undefined
  return problem ? {problem: `a malformed ablation note (${problem})`} : read
}
