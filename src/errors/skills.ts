import {ExpError} from './base.js'

/** Why a patch edit could not be placed on the current SKILL.md. */
export type PatchConflictReason = 'section-missing' | 'anchor-missing' | 'anchor-ambiguous' | 'section-exists'

/**
 * A skill patch no longer fits the text it is applied to (the base moved and the edit's
 * context is gone or ambiguous). Patches apply all-or-nothing, so the caller's text is
 * untouched when this is thrown.
 */
export class PatchConflictError extends ExpError {
  constructor(reason: PatchConflictReason, section: string, context: string | undefined, edit: number) {
    const what: Record<PatchConflictReason, string> = {
      'section-missing': `has no section "${section}"`,
      'anchor-missing': `section "${section}" has no line matching ${JSON.stringify(context)}`,
      'anchor-ambiguous': `section "${section}" has several lines matching ${JSON.stringify(context)}`,
      'section-exists': `already has a section "${section}"`,
    }
    super('E_PATCH_CONFLICT', `patch does not apply (edit ${edit + 1}): SKILL.md ${what[reason]}`, {
      data: {reason, section, context, edit},
      hint: 'the skill changed since the patch was made: propose the patch again against the current SKILL.md',
    })
  }
}
