import {existsSync, statSync} from 'node:fs'
import {readdir} from 'node:fs/promises'
import path from 'node:path'
import {hashObject} from '../../records/object-id.js'
import type {RepoPaths} from '../../store/index.js'
import type {SkillText} from '../../agents/types.js'
import type {Workspace} from '../../workspace/port.js'
import {ExpError, NotFoundError} from '../../errors/index.js'
import {readWorkFile} from '../../work-file.js'

/** The skill an evaluation runs with: its text, and the identities the manifest pins. */
export interface ResolvedSkill extends SkillText {
  blob: string
  /** where it came from: a path on disk, or REV:PATH in git */
  source: string
  commit?: string
}

function nameOf(file: string, text: string): string {
  const m = /^---\s*\n[\s\S]*?^name:\s*["']?([a-z0-9-]+)["']?\s*$/m.exec(text)
  return m ? m[1]! : path.basename(path.dirname(file))
}

/** The only skill under `skillsDir`, or an error that lists them. */
async function defaultSkill(skillsDir: string): Promise<string> {
  const names = existsSync(skillsDir) ? (await readdir(skillsDir, {withFileTypes: true})).filter(e => e.isDirectory() && existsSync(path.join(skillsDir, e.name, 'SKILL.md'))).map(e => e.name) : []
  if (names.length === 1) return path.join(skillsDir, names[0]!)
  throw new ExpError('E_USAGE', names.length ? `more than one skill in ${skillsDir}: ${names.join(', ')}` : `no skill found in ${skillsDir}`, {hint: 'pass --skill skills/NAME (a folder or SKILL.md), or --skill REV[:PATH] from git'})
}

/**
 * `--skill PATH|REF`: a skill folder or SKILL.md on disk; or a git revision (`main`,
 * `exp/proposal/<id>`, a commit) whose skills/<name>/SKILL.md is read through the Workspace
 * port; or `REV:PATH`.
 */
export async function resolveSkill(spec: string | undefined, o: {cwd: string; skillsDir: string; repo?: RepoPaths; workspace?: Workspace}): Promise<ResolvedSkill> {
  const onDisk = spec === undefined ? await defaultSkill(o.skillsDir) : path.resolve(o.cwd, spec)
  if (existsSync(onDisk)) {
    const file = statSync(onDisk).isDirectory() ? path.join(onDisk, 'SKILL.md') : onDisk
    if (!existsSync(file)) throw new NotFoundError('skill file', file, 'a skill folder holds SKILL.md')
    // (a regular file of at most 16 MiB: a SKILL.md that is a link to /dev/zero or a FIFO is named, not read)
    const content = (await readWorkFile(file)).toString('utf8')
    return {name: nameOf(file, content), content, blob: hashObject('blob', Buffer.from(content)), source: path.relative(o.cwd, file) || file}
  }
  const ws = o.workspace
  if (!ws) throw new NotFoundError('skill', spec!, 'give a skill folder, a SKILL.md, or a git revision')
  const colon = spec!.indexOf(':')
  const rev = colon < 0 ? spec! : spec!.slice(0, colon)
  const commit = await ws.resolve(rev)
  if (!commit) throw new NotFoundError('skill path or git revision', spec!, 'a folder that exists, or a branch/commit of this repository')
  let rel = colon < 0 ? '' : spec!.slice(colon + 1)
  if (!rel) {
    const dir = path.relative(o.repo?.workDir ?? ws.root ?? o.cwd, o.skillsDir).split(path.sep).join('/') || 'skills'
    const ls = (await ws.listTree(commit, dir)).map(f => `${dir}/${f.path}`).filter(f => f.endsWith('/SKILL.md')).sort()
    if (ls.length !== 1) throw new ExpError('E_USAGE', `${rev} has ${ls.length} skills; name one as ${rev}:skills/NAME`, {hint: ls.join(', ')})
    rel = ls[0]!
  } else if (!rel.endsWith('SKILL.md')) rel = `${rel.replace(/\/$/, '')}/SKILL.md`
  const bytes = await ws.readFile(commit, rel)
  // e.g. a pull request that adds a skill: its base has no such file
  if (!bytes) throw new NotFoundError('skill file', `${rev}:${rel}`, `${rel} does not exist at ${rev}; list the skills there with \`git ls-tree -r --name-only ${rev} -- ${path.posix.dirname(path.posix.dirname(rel))}\``)
  const content = bytes.toString('utf8')
  return {name: nameOf(rel, content), content, blob: hashObject('blob', Buffer.from(content)), source: `${rev}:${rel}`, commit}
}
