import type {SkillEdit} from '../../src/skills/index.js'

type Draft<E> = E extends SkillEdit ? Omit<E, 'reason' | 'knowledge'> & Partial<Pick<E, 'reason' | 'knowledge'>> : never

/** An edit with a default reason and knowledge, for tests that only care about the change. */
export function edit(e: Draft<SkillEdit>): SkillEdit {
  return {reason: 'test', knowledge: ['inventory-check-before-assignment'], ...e} as SkillEdit
}
