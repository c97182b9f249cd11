/**
 * The shapes of the skills domain: a parsed SKILL.md, lint problems, PURPOSE.yaml and
 * patches. Plain data only, so every value here can be stored in a record as JSON.
 */
import type {RuleId} from './rules.js'

/** A top-level list item of a section (a procedure step, a failure-handling bullet). */
export interface SkillItem {
  /** position among the section's top-level list items, 0-based */
  index: number
  /** which top-level list of the section it belongs to, 0-based */
  list: number
  ordered: boolean
  /** the number as written, for ordered lists */
  number?: number
  /** plain text of the item (markdown syntax removed, whitespace collapsed) */
  text: string
  /** first and last+1 line of the item, as indices into `SkillSection.lines` */
  start: number
  end: number
}

/** A `##` section: its heading line and every line up to the next section. */
export interface SkillSection {
  /** heading text as written, e.g. `Failure handling` */
  title: string
  depth: number
  /** 1-based line of the heading in the whole file */
  line: number
  /** the raw lines, heading included; rendering joins them back unchanged */
  lines: string[]
  items: SkillItem[]
}

export interface SkillFrontmatter {
  /** raw lines, both `---` delimiters included */
  lines: string[]
  /** the YAML mapping (empty when it does not parse) */
  data: Record<string, unknown>
}

/** A SKILL.md split losslessly: renderSkill(parseSkill(t)) === t. */
export interface ParsedSkill {
  frontmatter?: SkillFrontmatter
  /** lines between the frontmatter and the first section (the `#` title, an intro) */
  preamble: string[]
  /** text of the leading `#` heading, when there is one */
  title?: string
  sections: SkillSection[]
}

export interface LintProblem {
  /** path as shown to the user (relative to the lint's cwd) */
  file: string
  /** 1-based, when known */
  line?: number
  column?: number
  rule: RuleId
  message: string
}

export interface SkillLintResult {
  /** the skill folder (relative to cwd) and its name (the folder name) */
  dir: string
  name: string
  problems: LintProblem[]
}

export interface LintReport {
  ok: boolean
  /** total number of problems over all skills */
  problems: number
  skills: SkillLintResult[]
}

export type PurposeStatus = 'proposed' | 'accepted' | 'rejected' | 'reverted'

/** PURPOSE.yaml (docs/skills.md), schema `schemas/skill-purpose.schema.json`. */
export interface Purpose {
  skill: string
  version: number
  status: PurposeStatus
  derived_from: string[]
  knowledge?: string[]
  proposed_by: {proposer?: string; version?: string; model?: string; human?: string; lane?: string}
  evaluation?: {previous_score?: number; candidate_score?: number; evaluations?: string[]; verifications?: string[]}
  proposal?: string
  decision?: string
}

/** Fields every edit carries: why it is made and which knowledge it relies on. */
interface EditBase {
  /** title of the section the edit works in (matched case- and space-insensitively) */
  section: string
  reason: string
  knowledge: string[]
}

/**
 * A section-aware edit. `anchor` names an existing line or list item of the section by its
 * text (list marker, case and spacing ignored) — never by line number, so the edit still
 * applies when other lines moved. `lines` are new lines; in a list they become items.
 */
export type SkillEdit =
  | (EditBase & {op: 'insert_after' | 'insert_before'; anchor: string; lines: string[]})
  | (EditBase & {op: 'append'; lines: string[]})
  | (EditBase & {op: 'replace'; anchor: string; lines: string[]})
  | (EditBase & {op: 'remove'; anchor: string})
  | (EditBase & {op: 'add_section'; after?: string; lines: string[]})

export type EditOp = SkillEdit['op']

export interface SkillPatch {
  /** the skill the patch is for (informative; not checked against the text) */
  skill?: string
  edits: SkillEdit[]
}

export interface PatchSize {
  added: number
  removed: number
  changed: number
}

/** A patch applied to a base text: what the proposal record stores (002 §9). */
export interface RenderedPatch {
  text: string
  /** unified diff of SKILL.md, as `git diff` prints it */
  diff: string
  size: PatchSize
  /** titles of the sections touched, in document order */
  sections: string[]
  /** `sha256:` digest of the normalized edits (see normalizePatch) */
  normalized: string
  edits: SkillEdit[]
}
