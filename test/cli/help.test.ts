import t from 'tap'
import {execFile} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import {ROOT, exp} from '../helpers/cli.js'
import {expBatch} from '../helpers/cli-batch.js'
import {GIT_ENV, makeRepo, node, tempDir} from '../helpers/repo.js'
import {exampleRepo} from '../helpers/evolve.js'

interface Manifest {
  commands: Record<string, {summary?: string; description?: string; examples?: unknown[]; enableJsonFlag?: boolean; flags: Record<string, unknown>; jsonOutput?: string}>
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
  // a topic says what it is about, not the summary of one of its commands
  t.match(h.stdout, /^ {2}attempt +Attempts under a research contract: open one, evaluate it, promote/m)
  const topic = await exp(['attempt', '--help'], {cwd})
  t.match(topic.stdout, /^Attempts under a research contract/)
  t.match(topic.stdout, /^ {2}attempt eval +Evaluate an attempt/m)
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'oclif.manifest.json'), 'utf8')) as Manifest
  const topics = new Set(Object.keys(manifest.commands).filter(id => id.includes(':')).map(id => id.split(':')[0]!))
  const described = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {oclif: {topics?: Record<string, {description?: string}>}}).oclif.topics ?? {}
  t.same([...topics].filter(x => !described[x]?.description), [], 'every topic has a description of its own')
})

t.test('exp help --help and exp help help show the help command, not the root help', async t => {
  const cwd = await makeRepo(t)
  for (const args of [['help', '--help'], ['help', 'help'], ['help', '-h']]) {
    const r = await exp(args, {cwd})
    t.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`)
    t.match(r.stdout, /^Show help for exp, a topic or a command\./, args.join(' '))
    t.match(r.stdout, /\$ exp help skills lint/, args.join(' '))
  }
  // the root help stays where it was
  t.match((await exp(['help'], {cwd})).stdout, /^exp: a git-native research protocol/)
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
    // every command but help has --json, and says in its help what it prints
    if (id === 'help') continue
    t.ok(c.enableJsonFlag || 'json' in c.flags, `${id}: --json`)
    t.ok(c.jsonOutput && c.jsonOutput.length > 20, `${id}: its JSON is documented (static jsonOutput)`)
  }
})

t.test('--help shows what --json prints, and the read commands print valid JSON of that shape', async t => {
  const repo = await exampleRepo(t)
  const help = await exp(['lanes', '--help'], {cwd: repo})
  t.match(help.stdout, /^JSON OUTPUT\n {2}an array of \{lane, ref, private, tip, records, lastLamport\}/m)
  const note = (await exp(['append', 'note', '-', '--lane', 'x', '--json'], {cwd: repo, input: 'text: hi'}))
  const id = (JSON.parse(note.stdout) as {id: string}).id
  // the keys each read command's jsonOutput names first
  const reads: [string[], string[]][] = [
    [['ledger'], ['id', 'kind', 'lane', 'lamport', 'body']],
    [['lanes'], ['lane', 'ref', 'private', 'tip', 'records', 'lastLamport']],
    [['inspect', id], ['record', 'commit', 'ref', 'lane', 'private', 'path', 'cites', 'cited_by']],
    [['hypotheses'], []],
    [['frontier'], ['schema_version', 'agent_id', 'as_of', 'selected', 'blocked', 'promotion_candidates']],
    [['graph'], ['schema_version', 'as_of', 'nodes', 'edges']],
    [['fsck'], ['lanes', 'records', 'problems', 'hypotheses', 'evidence']],
    [['provenance', 'onboarding'], ['skill', 'main', 'versions']],
    [['blame', 'onboarding'], ['skill', 'path', 'main', 'lines']],
    [['report', '--out', 'site'], ['format', 'main', 'ledger', 'skills']],
    [['scenarios', 'list'], ['groups', 'scenarios', 'problems', 'sealed']],
    [['skills', 'lint'], ['ok', 'problems', 'skills']],
    [['contract', 'lint'], ['contracts', 'problems']],
    [['attempt', 'list'], []],
  ]
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'oclif.manifest.json'), 'utf8')) as Manifest
  // what each prints, not the process: one process runs them all (test/helpers/cli-batch.ts),
  // but for the ledger, whose JSON goes to the descriptor with writev(2) (src/cli/json-stream.ts)
  const batch = await expBatch(reads.slice(1).map(([args]) => ({args: [...args, '--json'], cwd: repo})))
  const results = [await exp([...reads[0]![0], '--json'], {cwd: repo}), ...batch]
  reads.forEach(([args, keys], i) => {
    const r = results[i]!
    t.equal(r.code, 0, `exp ${args.join(' ')} --json: ${r.stderr}`)
    let json: unknown
    t.doesNotThrow(() => (json = JSON.parse(r.stdout)), `exp ${args.join(' ')} --json prints one JSON value`)
    const one = (Array.isArray(json) ? json[0] : json) as Record<string, unknown> | undefined
    for (const k of keys) t.ok(one && k in one, `exp ${args.join(' ')} --json has ${k}`)
    const doc = manifest.commands[args.length > 1 && !args[1]!.startsWith('-') && manifest.commands[`${args[0]}:${args[1]}`] ? `${args[0]}:${args[1]}` : args[0]!]!.jsonOutput ?? ''
    for (const k of keys) t.match(doc, new RegExp(`\\b${k}\\b`), `the help of exp ${args[0]} names ${k}`)
  })
})

t.test('docs/commands.md and the manual pages are generated from the commands and current', async t => {
  const r = await run(...node([path.join(ROOT, 'scripts', 'gen-docs.mjs'), '--check']), {cwd: ROOT})
  t.equal(r.code, 0, `${r.stderr}`)
  const md = fs.readFileSync(path.join(ROOT, 'docs', 'commands.md'), 'utf8')
  for (const id of Object.keys((JSON.parse(fs.readFileSync(path.join(ROOT, 'oclif.manifest.json'), 'utf8')) as Manifest).commands)) t.match(md, `## exp ${id.replaceAll(':', ' ')}\n`)
})

t.test('a topic: help with examples; a flag given to it is a usage error (exit 2), --json an error in JSON', async t => {
  const cwd = tempDir(t)
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'oclif.manifest.json'), 'utf8')) as Manifest
  const topics = [...new Set(Object.keys(manifest.commands).filter(id => id.includes(':')).map(id => id.split(':')[0]!))]
  t.ok(topics.length >= 5)
  const helps = await expBatch(topics.flatMap(x => [{args: [x], cwd}, {args: [x, '--help'], cwd}]))
  topics.forEach((x, i) => {
    for (const r of [helps[2 * i]!, helps[2 * i + 1]!]) {
      t.equal(r.code, 0, `exp ${x}: ${r.stderr}`)
      t.match(r.stdout, new RegExp(`^EXAMPLES\\n {2}\\$ exp ${x} \\w+`, 'm'), `exp ${x} has examples, one of its commands each`)
    }
  })
  const [bogus, json, both, cflag] = await expBatch([
    {args: ['attempt', '--bogus'], cwd},
    {args: ['ci', '--json'], cwd},
    {args: ['skills', '--json', '--nope'], cwd},
    {args: ['scenarios', '-C', cwd], cwd},
  ])
  t.equal(bogus!.code, 2, bogus!.stderr)
  t.equal(bogus!.stdout, '', 'no help on stdout')
  t.match(bogus!.stderr, /^error: unknown flag: --bogus \(`exp attempt` is a topic, not a command\)\nhint: its commands: exp attempt eval, exp attempt list, exp attempt new, exp attempt promote; /)
  t.equal(json!.code, 2, json!.stderr)
  t.match(JSON.parse(json!.stdout), {error: {code: 'E_USAGE', message: /`exp ci` is a topic, not a command: --json goes after one of its commands/, hint: /exp ci init --json/}})
  t.equal(both!.code, 2)
  t.match(JSON.parse(both!.stdout), {error: {code: 'E_USAGE', message: /unknown flag: --nope/}})
  t.equal(cflag!.code, 0, '-C is taken by every command, a topic too')
  t.match(cflag!.stdout, /^EXAMPLES$/m)
  // (found by a sweep: `exp ci -C DIR init` showed the topic's help and exited 0, having done nothing)
  const [misplaced, misplacedJson] = await expBatch([{args: ['ci', '-C', cwd, 'init'], cwd}, {args: ['skills', '-C', cwd, 'lint', '--json'], cwd}])
  t.equal(misplaced!.code, 2, misplaced!.stderr)
  t.match(misplaced!.stderr, /-C goes before the topic: `exp ci -C .* init` runs nothing\nhint: write `exp -C .* ci init`/)
  t.notOk(fs.existsSync(path.join(cwd, '.github')), 'nothing written')
  t.equal(misplacedJson!.code, 2)
  t.match(JSON.parse(misplacedJson!.stdout), {error: {code: 'E_USAGE', message: /-C goes before the topic/}})
})
