import {canonicalJson, digestOf} from '../records/index.js'
import {parseSkill, sectionKey} from './parse.js'
import {applyPatch, assertPatch} from './patch-apply.js'
import {diffSize, unifiedDiff} from './patch-diff.js'
import {fold, isBlank} from './text.js'
import type {EditOp, RenderedPatch, SkillPatch} from './types.js'

/** An edit reduced to what it changes: no reason, no knowledge, folded text. */
export interface NormalizedEdit {
  op: EditOp
  section: string
  anchor?: string
  after?: string
  lines?: string[]
}

/**
 * The comparison form of a patch: every text folded (case, spacing, list markers), blank
 * lines dropped, reasons and knowledge left out, edits sorted. Two proposals that make the
 * same change in different words of justification, spacing or order normalize equally.
 */
export function normalizePatch(patch: SkillPatch): NormalizedEdit[] {
  const edits = patch.edits.map(e => {
    const n: NormalizedEdit = {op: e.op, section: fold(e.section)}
    if ('anchor' in e) n.anchor = fold(e.anchor)
    if (e.op === 'add_section' && e.after !== undefined) n.after = fold(e.after)
    if ('lines' in e) n.lines = e.lines.filter(l => !isBlank(l)).map(fold)
    return n
  })
  return edits.map(e => ({e, key: canonicalJson(e)})).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).map(x => x.e)
}

/** `sha256:` digest of the normalized patch: equal digests mean the same change. */
export function patchDigest(patch: SkillPatch): string {
  assertPatch(patch)
  return digestOf({format: 'skill-patch-normalized@1', edits: normalizePatch(patch)})
}

export interface RenderPatchOptions {
  /** path shown in the diff headers (default `SKILL.md`), e.g. `skills/onboarding/SKILL.md` */
  path?: string
}

/**
 * Applies a patch to a base text and describes the change the way a proposal record
 * stores it (docs/skills.md, "Patches"): new text, git-style diff, size, sections touched, digest.
 */
export function renderPatch(base: string, patch: SkillPatch, options: RenderPatchOptions = {}): RenderedPatch {
  const text = applyPatch(base, patch)
  const after = parseSkill(text)
  const touched = new Set(patch.edits.map(e => sectionKey(e.section)))
  return {
    text,
    diff: unifiedDiff(base, text, options.path),
    size: diffSize(base, text),
    sections: after.sections.filter(s => touched.has(sectionKey(s.title))).map(s => s.title).filter((t, i, all) => all.indexOf(t) === i),
    normalized: patchDigest(patch),
    edits: patch.edits,
  }
}
