import {splitCommandLine} from '../agents/command/argv.js'
import {ENV_SETTERS, INLINE, PYTHON, SHELLS, pythonMode, runnerCalls} from './command-words.js'

/**
 * Why lint cannot read what a command runs, or undefined: shell code (`bash -c '…'`: an attack
 * sweep's `PYTHONPATH+=src`, `. conf/env` defining a function named python3, `export`, `read`,
 * `printf -v` set what the evaluator ran), an environment it sets through `env` (`env
 * PYTHONPATH=src python3 …`: an attempt's src/json.py replaced the standard library's) or make
 * variables (`make MAKEFILES=…`). exp runs the command without a shell: outside those, `a=b` and
 * `$` are plain arguments.
 */
export function commandUnreadable(command: string): Unreadable | undefined {
  const why = unreadable(command)
  if (!why) return undefined
  // (a make or just variable belongs in the file that runner reads)
  const runner = /^sets \S+ \((g?make|just)\)$/.exec(why)?.[1]
  return {why, instead: runner ? `set it in the ${runner === 'just' ? 'justfile' : 'Makefile'} instead, outside the editable scope` : 'set it in the protected evaluator script instead'}
}

/** Why lint cannot read what a command runs, and what to do instead. */
export interface Unreadable {
  why: string
  instead: string
}

function unreadable(command: string): string | undefined {
  const words = splitCommandLine(command) ?? []
  const names = words.map(w => w.slice(w.lastIndexOf('/') + 1))
  const shell = names.findIndex(n => SHELLS.test(n))
  if (shell >= 0 && words.slice(shell + 1).some(w => /^-[A-Za-z]*c[A-Za-z]*$/i.test(w) || /^-(?:command|c)$/i.test(w))) return `runs shell code (${names[shell]} -c)`
  // (and what runs a shell command of its own: `npx -c '…'`, `npm exec -c`, `env -S '…'`, awk's system())
  const npx = names.findIndex(n => n === 'npx' || n === 'npm' || n === 'pnpm' || n === 'yarn')
  if (npx >= 0 && runnerCalls(words, npx + 1)) return `runs shell code (${names[npx]} -c)`
  // pytest's ini overrides change what it collects and where it imports from (`-o addopts=src`,
  // `-o pythonpath=src`: an attack sweep's src/conftest.py and src/statistics.py ran)
  // (pytest under any spelling: `python3 -mpytest`, `pytest.__main__`; -o in a cluster: `-qoaddopts=src`)
  if (words.some(w => /py\.?test/.test(w))) {
    const o = words.find(w => /^--override-ini(?:=|$)|^-[A-Za-z]*o/.test(w))
    if (o) return `overrides pytest's configuration (${o.startsWith('--') ? '--override-ini' : '-o'})`
  }
  // npm hands --node-options to the scripts it runs as NODE_OPTIONS (an attack sweep's `--require=./src/hook.js`)
  const nodeOptions = words.find(w => /^--node-(?:options|arg)(?:=|$)/.test(w))
  if (nodeOptions) return `sets NODE_OPTIONS (${nodeOptions.replace(/=[^]*$/, '')})`
  const env = names.indexOf('env')
  if (env >= 0 && words.slice(env + 1).some(w => /^-[A-Za-z]*S/.test(w) || w.startsWith('--split-string'))) return 'runs a command line env -S splits'
  const awk = names.findIndex(n => /^[gmn]?awk$/.test(n))
  if (awk >= 0 && !words.slice(awk + 1).some(w => /^-[A-Za-z]*f|^--file/.test(w))) return `runs inline code (${names[awk]}'s program)`
  // inline code (`python3 -c "…"`, `node -e`, `perl -e`, `deno eval`, `python3 -m timeit "…"`):
  // an attack sweep ran an editable evaluator through `__import__('tools.eval')`,
  // `importlib.import_module`, `exec('import …')`, `node -pe`, a template string: lint reads no code
  for (const [i, n] of names.entries()) {
    if (PYTHON.test(n)) {
      const o = pythonMode(words, i + 1)
      if (o?.flag === 'c') return 'runs inline code (python -c)'
      if (o?.flag === 'm' && o.value === 'timeit') return 'runs inline code (python -m timeit)'
    }
    const flags = INLINE.find(([name]) => name.test(n))?.[1]
    const flag = flags && words.slice(i + 1).find(w => flags.test(w))
    if (flag) return `runs inline code (${n} ${flag.replace(/=[^]*$/, '')})`
  }
  // programs that set an environment of their choosing before they run the next (from a file, a folder, their arguments)
  const loader = names.find(n => ENV_SETTERS.has(n))
  if (loader) return `runs ${loader}, which sets an environment lint cannot read`
  const setter = names.find(n => n === 'env' || n === 'make' || n === 'gmake' || n === 'just' || n === 'sudo')
  const tokens = words.flatMap(w => w.split(/\s+/)).filter(Boolean)
  const assign = setter && tokens.find(t => /^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(t))
  if (assign) return `sets ${assign.slice(0, assign.search(/\+?=/))} (${setter})`
  if (setter && words.some(w => /[$`]/.test(w))) return `holds an expansion ($ or \`) that ${setter} makes`
  return undefined
}
