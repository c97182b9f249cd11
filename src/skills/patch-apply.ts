import {SchemaError} from '../errors/index.js'
import {problemsOf} from '../records/index.js'
import {parseSkill, renderSkill} from './parse.js'
import {applyEdit} from './patch-edit.js'
import {skillValidator} from './schemas.js'
import type {SkillPatch} from './types.js'

/** Checks a patch against schemas/skill-patch.schema.json (the public boundary of patches). */
export function assertPatch(patch: unknown): asserts patch is SkillPatch {
  const v = skillValidator('skill-patch')
  if (!v(patch)) throw new SchemaError('skill patch', problemsOf(v.errors))
}

/**
 * Applies a patch to a SKILL.md text and returns the new text. Edits apply in order, each
 * to the result of the one before. All or nothing: the first edit whose section or anchor
 * is gone throws PatchConflictError (E_PATCH_CONFLICT) and no partial text escapes.
 * Numbered lists that gain or lose items are renumbered.
 */
export function applyPatch(text: string, patch: SkillPatch): string {
  assertPatch(patch)
  let parsed = parseSkill(text)
  patch.edits.forEach((edit, i) => {
    parsed = applyEdit(parsed, edit, i)
  })
  return renderSkill(parsed)
}
