import {spawn} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import {parse} from 'yaml'
import {plain} from './repo.js'

/**
 * Runs the steps of one job of a GitHub Actions workflow here, as a runner would: `run:`
 * steps in `bash --noprofile --norc -eo pipefail`, with the step's env, `${{ }}` expressions
 * replaced from `context` (an expression the test did not provide is an error, so the workflow
 * cannot use something the test does not know), GITHUB_OUTPUT read into `steps.<id>.outputs`,
 * `if:` conditions evaluated (`always()`, `success()`, `hashFiles()`, ==, !=, &&, ||), and a
 * failed step skipping the steps after it unless they say always(). `uses:` steps are handed
 * to `actions` (checkout, setup-node, ... are the runner's, not the workflow's logic).
 */
export interface StepResult {
  name: string
  ran: boolean
  code: number
  stdout: string
  stderr: string
}

export interface JobRun {
  /** false when the job's own `if:` skipped it */
  ran: boolean
  steps: StepResult[]
  ok: boolean
}

interface Step {
  name?: string
  id?: string
  if?: string
  uses?: string
  run?: string
  env?: Record<string, string | number>
  with?: Record<string, unknown>
}

export async function runJob(file: string, job: string, o: {workspace: string; context: Record<string, string>; env: NodeJS.ProcessEnv; actions: Record<string, (step: Step) => Promise<void> | void>; only?: readonly string[]}): Promise<JobRun> {
  const doc = parse(fs.readFileSync(file, 'utf8')) as {jobs: Record<string, {if?: string; steps: Step[]}>}
  const spec = doc.jobs[job]
  if (!spec) throw new Error(`no job ${job} in ${file}`)
  const ctx: Record<string, string> = {...o.context}
  const results: StepResult[] = []
  if (spec.if !== undefined && !evaluate(spec.if, ctx, o.workspace, true)) return {ran: false, steps: [], ok: true}
  let ok = true
  for (const step of spec.steps) {
    const name = step.name ?? step.uses ?? step.run!.split('\n')[0]!
    const cond = step.if ?? 'success()'
    if ((o.only && !o.only.includes(name)) || !evaluate(cond, ctx, o.workspace, ok)) {
      results.push({name, ran: false, code: 0, stdout: '', stderr: ''})
      continue
    }
    if (step.uses) {
      const action = Object.entries(o.actions).find(([prefix]) => step.uses!.startsWith(`${prefix}@`))
      if (!action) throw new Error(`the test has no stand-in for ${step.uses}`)
      await action[1](step)
      results.push({name, ran: true, code: 0, stdout: '', stderr: ''})
      continue
    }
    const output = path.join(o.workspace, '..', `github-output-${results.length}`)
    fs.writeFileSync(output, '')
    // (as GitHub's runner sets them for every step)
    const temp = path.join(o.workspace, '..', 'runner-temp')
    fs.mkdirSync(temp, {recursive: true})
    const env: NodeJS.ProcessEnv = {...o.env, CI: 'true', GITHUB_ACTIONS: 'true', GITHUB_OUTPUT: output, RUNNER_TEMP: temp}
    for (const [k, v] of Object.entries(step.env ?? {})) env[k] = substitute(String(v), ctx)
    const r = await bash(substitute(step.run!, ctx), {cwd: o.workspace, env})
    results.push({name, ran: true, ...r})
    if (step.id) for (const line of fs.readFileSync(output, 'utf8').split('\n')) {
      const eq = line.indexOf('=')
      if (eq > 0) ctx[`steps.${step.id}.outputs.${line.slice(0, eq)}`] = line.slice(eq + 1)
    }
    if (r.code !== 0) ok = false
  }
  return {ran: true, steps: results, ok}
}

function substitute(text: string, ctx: Record<string, string>): string {
  return text.replace(/\$\{\{\s*(.+?)\s*\}\}/g, (_, expr: string) => {
    if (!(expr in ctx) && !expr.startsWith('steps.')) throw new Error(`the workflow uses \${{ ${expr} }}, which the test does not provide`)
    return ctx[expr] ?? ''
  })
}

/** The small part of the Actions expression language the workflow's `if:` conditions use. */
function evaluate(expr: string, ctx: Record<string, string>, workspace: string, success: boolean): boolean {
  const js = expr
    .replace(/^\$\{\{\s*|\s*\}\}$/g, '')
    .replace(/always\(\)/g, 'true')
    .replace(/success\(\)/g, String(success))
    .replace(/failure\(\)/g, String(!success))
    .replace(/hashFiles\('([^']+)'\)/g, (_, f: string) => (fs.existsSync(path.join(workspace, f)) ? "'hash'" : "''"))
    .replace(/\b(github|steps|secrets|env)(\.[\w-]+)+/g, name => {
      if (!(name in ctx) && !name.startsWith('steps.')) throw new Error(`the condition uses ${name}, which the test does not provide`)
      return JSON.stringify(ctx[name] ?? '')
    })
    .replace(/'((?:[^']|'')*)'/g, (_, s: string) => JSON.stringify(s.replaceAll("''", "'")))
    .replace(/==/g, '===')
    .replace(/!===/g, '!==')
  if (/[^\s\w"'()&|!=.@[\]/-]/.test(js)) throw new Error(`cannot evaluate ${expr}`)
  return Boolean(new Function(`return (${js})`)())
}

function bash(script: string, o: {cwd: string; env: NodeJS.ProcessEnv}): Promise<{code: number; stdout: string; stderr: string}> {
  return new Promise(resolve => {
    const child = spawn(...plain('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script]), {cwd: o.cwd, env: o.env})
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', d => (stdout += d))
    child.stderr.on('data', d => (stderr += d))
    child.on('close', code => resolve({code: code ?? 1, stdout, stderr}))
  })
}
