import {splitCommandLine} from '../agents/command/argv.js'
import {globToRegExp, matchesAny} from '../gate/glob.js'
import {checkScope} from '../gate/scope.js'
import type {ContractDoc} from './types.js'
import {commandFiles, commandReads, shadowsOf} from './command-reads.js'
import {commandUnreadable} from './command-unreadable.js'
import {anywhere, below} from './test-roots.js'

/** The longest an evaluator command may be given (a timer cannot wait much longer than 24 days anyway). */
const MAX_TIMEOUT_SECONDS = 86_400
/** The most repetitions an evaluation may ask for (a typo of 100000000 would run for ever). */
const MAX_REPETITIONS = 1000
/** The most a resumed run's timeout may grow (its timer is capped at a day anyway; the record keeps the number). */
const MAX_TIMEOUT_MULTIPLIER = 100
/** Files under .research/ the protected scope must cover: the contracts, the policy, the config and anything else there. */
const RESEARCH_FILES = ['.research/contracts/x.yaml', '.research/policy.yaml', '.research/config.yaml', '.research/x/y']

/**
 * Why a path or glob of a contract could name something outside the repository, or inside
 * its git folder; undefined when it cannot. `file`: it names one file (a metrics file, an
 * artifact), so no glob characters and no `.` segments either.
 */
const hasControl = (s: string) => [...s].some(c => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)

function pathProblem(p: string, file = false): string | undefined {
  if (p.startsWith('/') || /^[A-Za-z]:/.test(p)) return 'no absolute path'
  if (p.includes('\\')) return 'no backslash: separate folders with /'
  if (hasControl(p)) return 'no control characters'
  // (exp's globs take *, ** and ? only: `pkg/[ab]/scorer.py` protected a folder named `[ab]`, not pkg/a)
  if (/[[\]{}]/.test(p)) return 'no [ ] { }: a glob here takes *, ** and ? only'
  const parts = p.split('/')
  if (parts.includes('..')) return 'no ..'
  if (parts.some(x => x.toLowerCase() === '.git')) return 'nothing in .git'
  if (file && (parts.some(x => x === '' || x === '.') || /[*?[]/.test(p))) return 'one file: no glob, no empty or . segment'
  return undefined
}

/** What a schema cannot say about a contract: each with the data path it is about. */
export function semanticProblems(doc: ContractDoc): {path: (string | number)[]; message: string}[] {
  const out: {path: (string | number)[]; message: string}[] = []
  const globs = (field: 'editable_scope' | 'protected_scope' | 'private_data') => (doc[field] ?? []) as string[]
  for (const field of ['editable_scope', 'protected_scope', 'private_data'] as const) {
    globs(field).forEach((g, i) => {
      const why = pathProblem(g)
      if (why) out.push({path: [field, i], message: `${field}[${i}] ${JSON.stringify(g)} must be a path inside the repository (${why})`})
      try {
        globToRegExp(g)
      } catch {
        out.push({path: [field, i], message: `${field}[${i}] "${g}" is not a glob`})
      }
    })
  }
  // an editable path may not also be protected: the boundary would be ambiguous
  globs('editable_scope').forEach((g, i) => {
    if (!/[*?[]/.test(g) && matchesAny(g, globs('protected_scope'))) out.push({path: ['editable_scope', i], message: `editable_scope[${i}] "${g}" is also protected`})
  })
  if (!RESEARCH_FILES.every(f => matchesAny(f, globs('protected_scope')))) out.push({path: ['protected_scope'], message: 'protected_scope must cover .research/** (an attempt may not edit its own contract, the policy or the config)'})
  for (const [i, g] of globs('private_data').entries()) {
    if (!globs('protected_scope').some(p => matchesAny(g.replace(/\*\*?/g, 'x'), [p]))) out.push({path: ['private_data', i], message: `private_data[${i}] "${g}" must be inside the protected scope`})
  }
  for (const key of ['dev_eval', 'holdout_eval'] as const) {
    const e = doc[key]
    const evaluator = e.evaluator ?? (e.command ? 'command' : 'world')
    if (evaluator === 'command' && !e.command) out.push({path: [key], message: `${key}: a command evaluator needs a command`})
    // (found by an attack sweep: a command with an unclosed quote passed lint, and an
    // evaluation recorded its baseline and made its attempt's commit before it failed)
    if (e.command && !splitCommandLine(e.command)?.length) out.push({path: [key, 'command'], message: `${key}.command ${JSON.stringify(e.command)} cannot be split into words (an unclosed quote or a trailing backslash?)`})
    if (evaluator === 'world' && e.command) out.push({path: [key, 'command'], message: `${key}: the world evaluator runs no command (evaluator: command, or drop command)`})
    if (evaluator === 'world' && !e.split) out.push({path: [key], message: `${key}: the world evaluator needs a split`})
    // the evaluator itself: a script an attempt may rewrite writes whatever score it likes
    // (found by an attack sweep: `python3 tools/eval.py` with `tools/**` editable passed lint)
    if (evaluator === 'command' && e.command) {
      // (a path an attempt may write: inside the editable scope and outside the protected one)
      const writable = (p: string) => checkScope([p], {editable_scope: globs('editable_scope'), protected_scope: globs('protected_scope')}).ok
      for (const f of commandFiles(e.command)) {
        if (writable(f)) out.push({path: [key, 'command'], message: `${key}.command runs ${JSON.stringify(f)}, which is editable: an attempt could rewrite the evaluator and write its own score (protect it: protected_scope)`})
        // and what it imports by name from beside it, before the runtime's own: Python puts the
        // script's folder first on sys.path (an attempt's json.py beside eval.py ran as the
        // standard library's json), Node looks in node_modules/ from the script's folder up
        const shadow = shadowsOf(f).find(x => writable(x.probe))
        if (shadow) out.push({path: [key, 'command'], message: `${key}.command runs ${JSON.stringify(f)}, and the editable scope may add ${shadow.what} beside it (${JSON.stringify(shadow.probe)}), which it would import in place of its own: an attempt could replace what the evaluator runs (narrow editable_scope, or protect ${JSON.stringify(shadow.folder)})`})
      }
      // what lint cannot read: an environment it sets (PYTHONPATH=src, NODE_PATH, NPM_CONFIG_PREFIX,
      // TS_NODE_PROJECT, NODE_OPTIONS: an attack sweep's PYTHONPATH=src let an attempt's src/json.py
      // replace the standard library's) and what a shell expands (`cd "$PWD/web"`)
      const unread = commandUnreadable(e.command)
      if (unread) out.push({path: [key, 'command'], message: `${key}.command ${JSON.stringify(e.command)} ${unread.why}: exp cannot tell what it makes the evaluator run (${unread.instead})`})
      // and what it reads code from by name: a runner's script file, a module, a version file
      for (const {why, files} of commandReads(e.command)) {
        const open = [...new Set(files.flatMap(f => (f.startsWith('**/') ? anywhere(f.slice(3), globs('editable_scope')) : f.includes('/**/') ? below(f, globs('editable_scope')) : [f])))].filter(writable)
        if (open.length) out.push({path: [key, 'command'], message: `${key}.command ${JSON.stringify(e.command)}: ${why}, and the editable scope covers ${open.map(f => JSON.stringify(f)).join(', ')}: an attempt could replace what the evaluator runs (protect ${open.length > 1 ? 'them' : 'it'}: protected_scope)`})
      }
    }
    const mf = e.metrics_file ?? 'metrics.json'
    // in any case: on a case-insensitive file system an editable Metrics.json is the metrics file
    if (evaluator === 'command' && (matchesAny(mf, globs('editable_scope')) || matchesAny(mf.toLowerCase(), globs('editable_scope').map(g => g.toLowerCase())))) out.push({path: [key, 'metrics_file'], message: `${key}.metrics_file "${mf}" is editable: an attempt could write its own score`})
    const mfWhy = pathProblem(mf, true)
    if (mfWhy) out.push({path: [key, 'metrics_file'], message: `${key}.metrics_file ${JSON.stringify(mf)} must be a file relative to the command's folder (${mfWhy})`})
    for (const [j, a] of (e.required_artifacts ?? []).entries()) {
      if (evaluator === 'command' && (matchesAny(a, globs('editable_scope')) || matchesAny(a.toLowerCase(), globs('editable_scope').map(g => g.toLowerCase())))) out.push({path: [key, 'required_artifacts', j], message: `${key}.required_artifacts[${j}] "${a}" is editable: an attempt could supply the artifact the evaluator must write`})
      const why = pathProblem(a, true)
      if (why) out.push({path: [key, 'required_artifacts', j], message: `${key}.required_artifacts[${j}] ${JSON.stringify(a)} must be a file relative to the command's folder (${why})`})
    }
    if (e.repetitions !== undefined && e.repetitions > MAX_REPETITIONS) out.push({path: [key, 'repetitions'], message: `${key}.repetitions ${e.repetitions} is more than ${MAX_REPETITIONS}`})
    if (e.timeout_seconds !== undefined && e.timeout_seconds > MAX_TIMEOUT_SECONDS) out.push({path: [key, 'timeout_seconds'], message: `${key}.timeout_seconds ${e.timeout_seconds} is more than ${MAX_TIMEOUT_SECONDS} (a day)`})
  }
  const mult = doc.resume?.timeout_multiplier
  if (mult !== undefined && mult > MAX_TIMEOUT_MULTIPLIER) out.push({path: ['resume', 'timeout_multiplier'], message: `resume.timeout_multiplier ${mult} is more than ${MAX_TIMEOUT_MULTIPLIER}`})
  if (doc.baseline && doc.baseline.revision === undefined && doc.baseline.value === undefined) out.push({path: ['baseline'], message: 'baseline needs a revision or a value'})
  if (doc.baseline?.revision !== undefined && (doc.baseline.revision.startsWith('-') || /\s/.test(doc.baseline.revision) || hasControl(doc.baseline.revision))) out.push({path: ['baseline', 'revision'], message: `baseline.revision ${JSON.stringify(doc.baseline.revision)} is not a revision (no leading -, no whitespace or control characters)`})
  return out
}
