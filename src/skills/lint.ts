import {isUtf8} from 'node:buffer'
import {readdir, stat} from 'node:fs/promises'
import path from 'node:path'
import {validate} from 'skills-ref'
import {NotFoundError} from '../errors/index.js'
import {readWorkFile, workFileRefusal} from '../work-file.js'
import {readFrontmatter} from './frontmatter.js'
import {parseSkill} from './parse.js'
import {bodyProblems} from './lint-body.js'
import {frontmatterProblems, specMessages, type ProblemDraft} from './lint-frontmatter.js'
import {checkPurpose, PURPOSE_FILE} from './purpose.js'
import {REQUIRED_SECTIONS} from './rules.js'
import {splitLines} from './text.js'
import type {LintProblem, LintReport, SkillLintResult} from './types.js'

export const SKILL_FILE = 'SKILL.md'

export interface LintOptions {
  /** paths in the result are relative to this folder (default: process.cwd()) */
  cwd?: string
  /** the folder of skills linted when no path is given (default: <cwd>/skills) */
  skillsDir?: string
  /** body sections every skill must have (default: Objective, Procedure, Failure handling) */
  requiredSections?: readonly string[]
  /** report a missing PURPOSE.yaml (default: true) */
  requirePurpose?: boolean
}

/** The texts of one skill folder, however they were read (disk, a git tree, a test). */
export interface SkillSource {
  /** folder path as shown in problems */
  dir: string
  /** the folder name, which `name` must equal */
  name: string
  /** SKILL.md text; undefined when the file is missing */
  skill?: string
  /** PURPOSE.yaml text; undefined when the file is missing */
  purpose?: string
  /** skills-ref findings when already computed from the folder; derived from `skill` otherwise */
  spec?: string[]
}

/** Lints one skill given its texts. Pure: no disk, no clock. */
export function lintSkillSource(src: SkillSource, options: LintOptions = {}): SkillLintResult {
  const skillFile = path.join(src.dir, SKILL_FILE)
  const purposeFile = path.join(src.dir, PURPOSE_FILE)
  const problems: LintProblem[] = []
  const add = (file: string, drafts: ProblemDraft[]) => problems.push(...sortByLine(drafts).map(d => ({file, ...d})))

  if (src.skill === undefined) {
    const message = src.spec?.[0] ?? `no ${SKILL_FILE} in ${src.dir}`
    add(skillFile, [{rule: 'skill/missing', message}])
  } else {
    const fm = readFrontmatter(splitLines(src.skill))
    // skills-ref parses the frontmatter again, without an alias limit, and turns values into
    // strings: a 1.4 KB SKILL.md of nested aliases, which exp's own parse refuses, took it to
    // 4 GB and a V8 abort. It is asked only about a frontmatter exp's parse took.
    const parsed = fm.tooLarge === undefined && !fm.errors.length && !fm.notMapping
    const drafts = frontmatterProblems(fm, src.spec ?? (parsed ? specMessages(src.skill, src.name) : []))
    // an unclosed frontmatter swallows the body: its sections would only add noise
    if (!fm.unclosed) drafts.push(...bodyProblems(parseSkill(src.skill), options.requiredSections ?? REQUIRED_SECTIONS))
    add(skillFile, drafts)
  }

  if (src.purpose !== undefined) add(purposeFile, checkPurpose(src.purpose, src.name).problems)
  else if (options.requirePurpose ?? true) add(purposeFile, [{rule: 'purpose/missing', message: `no ${PURPOSE_FILE} beside ${SKILL_FILE}: every skill version names its provenance`}])
  return {dir: src.dir, name: src.name, problems}
}

/** Problems in file order; those without a line (a missing section) go last. */
function sortByLine(drafts: ProblemDraft[]): ProblemDraft[] {
  return drafts.map((d, i) => ({d, i})).sort((a, b) => (a.d.line ?? Infinity) - (b.d.line ?? Infinity) || a.i - b.i).map(x => x.d)
}

const readBytes = (file: string) => readWorkFile(file).then(b => b, () => undefined)

/** The line of the first byte that is not UTF-8 (a newline byte is never part of a longer character). */
function lineOfBadByte(bytes: Buffer): number {
  let line = 1
  for (let from = 0; from < bytes.length; line++) {
    const nl = bytes.indexOf(0x0a, from)
    const to = nl < 0 ? bytes.length : nl
    if (!isUtf8(bytes.subarray(from, to))) return line
    from = to + 1
  }
  return line
}

/** The line (from 1) of byte `at`. */
function lineAt(bytes: Buffer, at: number): number {
  let line = 1
  for (let i = bytes.indexOf(0x0a); i >= 0 && i < at; i = bytes.indexOf(0x0a, i + 1)) line++
  return line
}

/** Lints one skill folder: skills-ref's `validate` on the folder, then exp's own rules. */
export async function lintSkill(dir: string, options: LintOptions = {}): Promise<SkillLintResult> {
  const abs = path.resolve(options.cwd ?? process.cwd(), dir)
  const shown = path.relative(options.cwd ?? process.cwd(), abs) || '.'
  // a SKILL.md or PURPOSE.yaml that is a device, a FIFO or huge is named and not read (a
  // repository can commit `SKILL.md -> /dev/zero`: skills-ref's validate read it whole)
  const [skillRefused, purposeRefused] = await Promise.all([SKILL_FILE, PURPOSE_FILE].map(f => workFileRefusal(path.join(abs, f))))
  const refused = (file: string, why: string): LintProblem => ({file: path.join(shown, file), rule: 'skill/unreadable', message: `${file} ${why}`})
  if (skillRefused) return {dir: shown, name: path.basename(abs), problems: [refused(SKILL_FILE, skillRefused), ...(purposeRefused ? [refused(PURPOSE_FILE, purposeRefused)] : [])]}
  const [skillBytes, purposeBytes] = await Promise.all([readBytes(path.join(abs, SKILL_FILE)), purposeRefused ? undefined : readBytes(path.join(abs, PURPOSE_FILE))])
  const [skill, purpose] = [skillBytes?.toString('utf8'), purposeBytes?.toString('utf8')]
  // (skills-ref's own words for a folder without SKILL.md; a text read is checked as a text, below)
  const spec = skill === undefined ? await validate(abs) : undefined
  const result = lintSkillSource({dir: shown, name: path.basename(abs), skill, purpose, ...(spec ? {spec} : {})}, purposeRefused ? {...options, requirePurpose: false} : options)
  if (purposeRefused) result.problems.push(refused(PURPOSE_FILE, purposeRefused))
  for (const [file, bytes] of [[SKILL_FILE, skillBytes], [PURPOSE_FILE, purposeBytes]] as const) {
    if (!bytes) continue
    const at = {file: path.join(shown, file), rule: 'skill/encoding' as const}
    if (!isUtf8(bytes)) result.problems.unshift({...at, line: lineOfBadByte(bytes), message: `${file} is not valid UTF-8: a byte that is not would be read as U+FFFD, and the text checked would not be the one committed; save it as UTF-8`})
    // (a BOM comes before the `---`: the spec's readers find no frontmatter, and said only that)
    else if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) result.problems.unshift({...at, line: 1, message: `${file} starts with a UTF-8 byte order mark (EF BB BF), which readers of the spec take for text before the frontmatter; save it as UTF-8 without a BOM`})
    // a NUL makes git treat the file as binary: a patch to it is reviewed as "Binary files differ"
    const nul = bytes.indexOf(0)
    if (nul >= 0) result.problems.unshift({...at, line: lineAt(bytes, nul), message: `${file} holds a NUL byte: git takes it for a binary file, and a change to it is no longer shown as a diff for review; remove it`})
  }
  return result
}

/**
 * Lints skill folders. Each path is a skill folder, a file in one, or a folder of skill
 * folders (like `skills/`); no path means every folder under `<cwd>/skills`.
 */
export async function lintSkills(paths: readonly string[], options: LintOptions = {}): Promise<LintReport> {
  const cwd = options.cwd ?? process.cwd()
  const dirs = await skillDirs(paths, cwd, options.skillsDir)
  const skills: SkillLintResult[] = []
  for (const dir of dirs) skills.push(await lintSkill(dir, {...options, cwd}))
  const problems = skills.reduce((n, s) => n + s.problems.length, 0)
  return {ok: problems === 0, problems, skills}
}

async function skillDirs(paths: readonly string[], cwd: string, skillsDir?: string): Promise<string[]> {
  if (!paths.length) {
    const root = skillsDir ?? path.join(cwd, 'skills')
    if (!(await stat(root).catch(() => undefined))?.isDirectory()) {
      throw new NotFoundError('skills folder', root, 'create skills/<name>/SKILL.md, or pass the skill folders to lint')
    }
    return subdirs(root)
  }
  const out: string[] = []
  for (const p of paths) {
    const abs = path.resolve(cwd, p)
    const s = await stat(abs).catch(() => undefined)
    if (!s) throw new NotFoundError('path', p, 'pass a skill folder, its SKILL.md, or a folder of skills')
    if (s.isFile()) out.push(path.dirname(abs))
    else if (await isSkillDir(abs)) out.push(abs)
    else {
      const inner = await subdirs(abs)
      const hasSkills = (await Promise.all(inner.map(isSkillDir))).some(Boolean)
      out.push(...(hasSkills ? inner : [abs]))
    }
  }
  return [...new Set(out)]
}

async function subdirs(root: string): Promise<string[]> {
  const entries = await readdir(root, {withFileTypes: true})
  return entries.filter(e => e.isDirectory() && !e.name.startsWith('.')).map(e => path.join(root, e.name)).sort()
}

async function isSkillDir(dir: string): Promise<boolean> {
  const found = await Promise.all([SKILL_FILE, PURPOSE_FILE].map(f => stat(path.join(dir, f)).catch(() => undefined)))
  return found.some(Boolean)
}
