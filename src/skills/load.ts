import path from 'node:path'
import {readProperties, toPrompt, ParseError as SpecParseError, ValidationError as SpecValidationError} from 'skills-ref'
import {NotFoundError, ParseError, SchemaError, isExpError} from '../errors/index.js'
import {checkWorkFile, readWorkFile} from '../work-file.js'
import {parseSkill} from './parse.js'
import {SKILL_FILE} from './lint.js'
import type {ParsedSkill} from './types.js'

/** The frontmatter fields of the Agent Skills spec, as skills-ref reads them. */
export interface SkillProperties {
  name: string
  description: string
  license?: string
  compatibility?: string
  allowedTools?: string
  metadata: Record<string, string>
}

export interface LoadedSkill {
  /** folder name */
  name: string
  dir: string
  file: string
  text: string
  properties: SkillProperties
  parsed: ParsedSkill
}

/**
 * Reads a skill folder for use (by a runner or a proposer). It does not lint: call
 * lintSkill for that. Fails with a typed error when SKILL.md is missing or its
 * frontmatter cannot be read.
 */
export async function loadSkill(dir: string): Promise<LoadedSkill> {
  const file = path.join(dir, SKILL_FILE)
  // (skills-ref reads the file itself: a device, a FIFO or a huge file is named first)
  await checkWorkFile(file).catch(e => {
    if (isExpError(e)) throw e
  })
  let properties: SkillProperties
  try {
    const p = await readProperties(dir)
    properties = {name: p.name, description: p.description, license: p.license, compatibility: p.compatibility, allowedTools: p.allowedTools, metadata: p.metadata}
  } catch (e) {
    throw translate(e, dir, file)
  }
  const text = await readWorkFile(file).then(
    b => b.toString('utf8'),
    e => {
      if (isExpError(e)) throw e
      throw new NotFoundError('skill', dir, `the skill needs a file named exactly ${SKILL_FILE}`)
    },
  )
  return {name: path.basename(path.resolve(dir)), dir, file, text, properties, parsed: parseSkill(text)}
}

function translate(e: unknown, dir: string, file: string): unknown {
  if (e instanceof SpecParseError) {
    if (/not found/.test(e.message)) return new NotFoundError('skill', dir, `a skill is a folder with a ${SKILL_FILE}; list them with \`exp skills lint\``)
    return new ParseError(file, e.message)
  }
  if (e instanceof SpecValidationError) return new SchemaError(`${SKILL_FILE} frontmatter`, [{path: '', message: e.message}], file)
  return e
}

/** The `<available_skills>` prompt block (skills-ref's format) for the given skill folders. */
export function skillsPrompt(dirs: readonly string[]): Promise<string> {
  return toPrompt([...dirs])
}
