import t from 'tap'
import {execFile} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import {ROOT, exp} from '../helpers/cli.js'
import {GIT_ENV, makeRepo, node, tempDir} from '../helpers/repo.js'

interface Manifest {
  commands: Record<string, {summary?: string; description?: string; examples?: unknown[]}>
}

const run = (cmd: string, args: string[], o: {cwd: string; env?: NodeJS.ProcessEnv}) =>
  new Promise<{code: number; stdout: string; stderr: string}>(resolve => {
    execFile(cmd, args, {cwd: o.cwd, env: {...GIT_ENV, ...o.env}}, (err, stdout, stderr) => resolve({code: err ? ((err as {code?: number}).code ?? 1) : 0, stdout, stderr}))
  })

// Problem 6 of issue 13: the help entry points a new user tries first.
t.test('exp -h, exp help, exp help COMMAND and exp help TOPIC COMMAND print help', async t => {
  const cwd = await makeRepo(t)
  const [h, help, helpRun, helpLint, flag] = await Promise.all([exp(['-h'], {cwd}), exp(['help'], {cwd}), exp(['help', 'run'], {cwd}), exp(['help', 'skills', 'lint'], {cwd}), exp(['ci', 'init', '--help'], {cwd})])
  for (const r of [h, help]) {
    t.equal(r.code, 0, r.stderr)
    t.match(r.stdout, /^exp: a git-native research protocol/)
    t.match(r.stdout, /^COMMANDS$/m)
    t.notMatch(r.stderr, /not found/)
  }
  t.match(helpRun.stdout, /^Run an agent on a split/)
  t.match(helpRun.stdout, /^EXAMPLES$/m)
  t.match(helpLint.stdout, /\$ exp skills lint/)
  t.match(flag.stdout, /^DESCRIPTION$/m, 'exp ci init --help has a description')
  t.match(flag.stdout, /^EXAMPLES$/m)
  t.match(flag.stdout, /--install=<value>/)
})

t.test('git exp -h, git exp help COMMAND, and git exp --help opens the git-exp manual page', async t => {
  const cwd = await makeRepo(t)
  const bin = tempDir(t)
  // what npm install -g puts on PATH: git-exp and exp
  fs.writeFileSync(path.join(bin, 'git-exp'), `#!/bin/sh\nexec ${node([path.join(ROOT, 'bin', 'git-exp.js')]).flat().map(a => `'${a}'`).join(' ')} "$@"\n`, {mode: 0o755})
  const man = tempDir(t)
  fs.mkdirSync(path.join(man, 'man1'))
  fs.copyFileSync(path.join(ROOT, 'man', 'git-exp.1'), path.join(man, 'man1', 'git-exp.1'))
  const env = {PATH: `${bin}:${process.env.PATH}`, MANPATH: man, MANPAGER: 'cat', PAGER: 'cat', GIT_PAGER: 'cat'}
  const dash = await run('git', ['exp', '-h'], {cwd, env})
  t.equal(dash.code, 0, dash.stderr)
  t.match(dash.stdout, /^COMMANDS$/m)
  const sub = await run('git', ['exp', 'help', 'gate'], {cwd, env})
  t.match(sub.stdout, /--junit=<value>/)
  const page = await run('git', ['exp', '--help'], {cwd, env})
  t.equal(page.code, 0, page.stderr)
  t.match(page.stdout, /GIT-EXP\(1\)/)
  t.match(page.stdout, /exp ci init/)
  t.notMatch(page.stderr, /No manual entry/)
})

t.test('every command has a summary, a description and examples in its help', async t => {
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'oclif.manifest.json'), 'utf8')) as Manifest
  const ids = Object.keys(manifest.commands)
  t.ok(ids.length >= 30)
  for (const id of ids) {
    const c = manifest.commands[id]!
    t.ok(c.summary, `${id}: summary`)
    t.ok(c.description && c.description.length > 40, `${id}: description`)
    t.ok((c.examples ?? []).length > 0, `${id}: examples`)
  }
})

t.test('docs/commands.md and the manual pages are generated from the commands and current', async t => {
  const r = await run(...node([path.join(ROOT, 'scripts', 'gen-docs.mjs'), '--check']), {cwd: ROOT})
  t.equal(r.code, 0, `${r.stderr}`)
  const md = fs.readFileSync(path.join(ROOT, 'docs', 'commands.md'), 'utf8')
  for (const id of Object.keys((JSON.parse(fs.readFileSync(path.join(ROOT, 'oclif.manifest.json'), 'utf8')) as Manifest).commands)) t.match(md, `## exp ${id.replaceAll(':', ' ')}\n`)
})
