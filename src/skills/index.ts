/**
 * Skills: SKILL.md files in the Agent Skills format, their PURPOSE.yaml provenance, the
 * lint that guards both, and section-aware patches. See docs/skills.md.
 */
export {parseSkill, renderSkill, findSection, sectionKey} from './parse.js'
export {loadSkill, skillsPrompt, type LoadedSkill, type SkillProperties} from './load.js'
export {lintSkill, lintSkills, lintSkillSource, SKILL_FILE, type LintOptions, type SkillSource} from './lint.js'
export {readPurpose, writePurpose, formatPurpose, checkPurpose, PURPOSE_FILE, type PurposeCheck} from './purpose.js'
export {applyPatch, assertPatch} from './patch-apply.js'
export {renderPatch, normalizePatch, patchDigest, type NormalizedEdit, type RenderPatchOptions} from './patch-render.js'
export {unifiedDiff, diffSize} from './patch-diff.js'
export {RULES, RULE_IDS, REQUIRED_SECTIONS, type RuleId} from './rules.js'
export {fold} from './text.js'
export type * from './types.js'
