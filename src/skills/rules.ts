/**
 * Every lint rule, by id. The ids are stable (tools and CI filter on them); docs/skills.md
 * lists the same table. Rules marked "spec" come from skills-ref (the Agent Skills
 * reference validator); the others are exp's stricter checks on top of it.
 */
export const RULES = {
  'skill/missing': 'spec: the folder exists and holds a SKILL.md',
  'skill/unreadable': 'exp: SKILL.md and PURPOSE.yaml are regular files of at most 16 MiB (not a device, a FIFO or a link to one)',
  'skill/encoding': 'exp: SKILL.md and PURPOSE.yaml are valid UTF-8 (a byte that is not would be read as U+FFFD: the text checked would not be the one committed)',
  'frontmatter/missing': 'spec: SKILL.md starts with a `---` YAML frontmatter block',
  'frontmatter/unclosed': 'spec: the frontmatter is closed by a `---` line',
  'frontmatter/yaml': 'spec: the frontmatter is valid YAML (reported with line and column)',
  'frontmatter/not-mapping': 'spec: the frontmatter is a YAML mapping',
  'frontmatter/size': 'exp: the frontmatter is at most 64 KiB (it is pasted into every agent prompt that lists skills)',
  'frontmatter/unknown-key': 'spec: only name, description, license, compatibility, metadata, allowed-tools',
  'name/required': 'spec: `name` is present and a non-empty string',
  'name/length': 'spec: `name` has at most 64 characters',
  'name/charset': 'only lowercase a-z, digits and hyphens (the spec also allows other Unicode letters)',
  'name/hyphens': 'spec: no leading, trailing or consecutive hyphens',
  'name/folder': 'spec: `name` equals the skill folder name',
  'description/required': 'spec: `description` is present and a non-empty string',
  'description/length': 'spec: `description` has at most 1024 characters',
  'description/angle-brackets': 'no `<` or `>` in `description` (it is embedded in XML prompts)',
  'compatibility/type': 'spec: `compatibility` is a string',
  'compatibility/length': 'spec: `compatibility` has at most 500 characters',
  'license/type': '`license` is a string',
  'allowed-tools/type': '`allowed-tools` is a string (space-separated tool patterns)',
  'metadata/type': '`metadata` maps string keys to string values',
  'spec/other': 'spec: any other skills-ref finding (message passed through)',
  'section/missing': 'the body has the sections Objective, Procedure and Failure handling',
  'section/duplicate': 'no two sections have the same title',
  'section/empty': 'a section has content below its heading',
  'procedure/list': 'the Procedure section holds a numbered list of steps',
  'procedure/numbering': 'procedure steps are numbered 1, 2, 3, ... in order',
  'purpose/missing': 'a PURPOSE.yaml sits beside SKILL.md',
  'purpose/yaml': 'PURPOSE.yaml is valid YAML (reported with line and column)',
  'purpose/schema': 'PURPOSE.yaml matches schemas/skill-purpose.schema.json',
  'purpose/skill': 'PURPOSE.yaml `skill` equals the skill folder name',
} as const

export type RuleId = keyof typeof RULES

export const RULE_IDS = Object.keys(RULES) as RuleId[]

/** The body sections every skill has (docs/skills.md), in their usual order. */
export const REQUIRED_SECTIONS: readonly string[] = ['Objective', 'Procedure', 'Failure handling']
