import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {tempDir} from '../../helpers/repo.js'
import {runCommandEvaluator, judgeObservation, parseMetrics} from '../../../src/evals/evaluator/command.js'
import type {EvalSpec} from '../../../src/contracts/types.js'
import {makeRedactor} from '../../../src/redact/index.js'
import {parseContract} from '../../../src/contracts/load.js'
import {CONTRACT} from '../../helpers/contracts.js'

/**
 * The command evaluator against an evaluator run that turns on its caller: the attempt's
 * code runs inside the contract's command whenever the editable scope holds code, so
 * whatever that command leaves behind — a link, a FIFO, a huge or hostile metrics file, a
 * secret in its output — must not become anything but a needs_retry, and must never carry
 * a secret into a record.
 */
const SECRET = 'hunter2-SECRET-VALUE-0123456789'
const spec = (over: Partial<EvalSpec> = {}): EvalSpec => ({evaluator: 'command', command: 'sh run.sh', label: 'sh run.sh', timeout_seconds: 10, repetitions: 1, required_artifacts: [], metrics_file: 'metrics.json', ...over})
const contract = parseContract(CONTRACT, '.research/contracts/quad.yaml').contract!

function checkout(t: {teardown(fn: () => void): void}, script: string): string {
  const dir = tempDir(t)
  fs.writeFileSync(path.join(dir, 'run.sh'), script)
  return dir
}

const redact = makeRedactor({env: {EXP_TEST_TOKEN: SECRET}, secrets: [SECRET]})
const run = (dir: string, over: Partial<EvalSpec> = {}) => runCommandEvaluator({spec: spec(over), checkout: dir, seed: 1, repetition: 0, redact})

t.test('a metrics file that is a symbolic link is not followed: a secret file it points at is never read', async t => {
  const outside = tempDir(t)
  fs.writeFileSync(path.join(outside, 'secret.json'), JSON.stringify({score: 99, leak: SECRET}))
  const dir = checkout(t, `ln -s ${path.join(outside, 'secret.json')} metrics.json\n`)
  const r = await run(dir)
  t.equal(r.metrics, undefined, 'no metrics read through the link')
  t.match(r.metrics_error, /symbolic link/)
  t.notOk(JSON.stringify(r).includes(SECRET))
  t.match(judgeObservation({...r, boundary: {clean: true, changed: []}, timeout_seconds: 10}, contract), {valid: false, needs_retry: {stop_reason: 'unparseable_metrics'}})
})

t.test('a metrics file under a linked folder is not read either', async t => {
  const outside = tempDir(t)
  fs.writeFileSync(path.join(outside, 'metrics.json'), JSON.stringify({score: 99}))
  const dir = checkout(t, `ln -s ${outside} out\n`)
  const r = await run(dir, {metrics_file: 'out/metrics.json'})
  t.equal(r.metrics, undefined)
  t.match(r.metrics_error, /outside the command's folder|symbolic link/)
})

t.test('a FIFO as the metrics file does not hang the evaluation', async t => {
  const dir = checkout(t, 'mkfifo metrics.json\n')
  const t0 = Date.now()
  const r = await run(dir)
  t.ok(Date.now() - t0 < 5000, 'returned at once')
  t.equal(r.metrics, undefined)
  t.match(r.metrics_error, /not a regular file/)
})

t.test('a metrics file larger than the cap is refused without being read whole', async t => {
  const dir = checkout(t, `head -c $((1024 * 1024 + 10)) /dev/zero | tr '\\0' ' ' > metrics.json; echo '{"score": 1}' >> metrics.json\n`)
  const r = await run(dir)
  t.equal(r.metrics, undefined)
  t.match(r.metrics_error, /larger than/)
})

t.test('a required artifact that is a link, or a path out of the folder, is missing, and nothing outside is read', async t => {
  const outside = tempDir(t)
  fs.writeFileSync(path.join(outside, 'model.bin'), SECRET)
  const dir = checkout(t, `echo '{"score": 1}' > metrics.json; ln -s ${path.join(outside, 'model.bin')} model.bin\n`)
  const r = await run(dir, {required_artifacts: ['model.bin']})
  t.same(r.artifacts, [])
  t.same(r.missing_artifacts, ['model.bin'])
})

// Found by a sweep: an artifact already in the checkout (committed by the attempt) was counted
// as written by the evaluator, which never wrote it.
t.test('a required artifact that was there before the command ran is not the command\'s: missing unless it writes it', async t => {
  const dir = checkout(t, `echo '{"score": 1}' > metrics.json\n`)
  fs.writeFileSync(path.join(dir, 'report.txt'), 'forged\n')
  const r = await run(dir, {required_artifacts: ['report.txt']})
  t.same(r.missing_artifacts, ['report.txt'])
  const w = checkout(t, `echo '{"score": 1}' > metrics.json; echo mine > report.txt\n`)
  fs.writeFileSync(path.join(w, 'report.txt'), 'forged\n')
  const written = await run(w, {required_artifacts: ['report.txt']})
  t.same(written.missing_artifacts, [])
  t.equal(written.artifacts?.length, 1, 'what the command wrote counts')
})

t.test('a metrics file with NUL bytes, or text that is not JSON, is unparseable, and its content never reaches the error', async t => {
  const dir = checkout(t, `printf '{"score": 1, "x": "\\000\\000${SECRET}' > metrics.json\n`)
  const r = await run(dir)
  t.equal(r.metrics, undefined)
  t.ok(r.metrics_error)
  t.notOk(r.metrics_error!.includes('hunter2'), String(r.metrics_error))
  const plain = checkout(t, `printf 'not json at all ${SECRET}' > metrics.json\n`)
  const p = await run(plain)
  t.notOk(p.metrics_error!.includes('hunter2'), String(p.metrics_error))
})

t.test('a secret written into the metrics or printed is redacted before it is returned', async t => {
  const dir = checkout(t, `echo '{"score": 1, "note": "${SECRET}", "${SECRET}": 2}' > metrics.json; echo "out ${SECRET}"; echo "err ${SECRET}" >&2\n`)
  const r = await run(dir)
  t.equal(r.metrics!.score, 1)
  t.notOk(JSON.stringify(r).includes(SECRET), JSON.stringify(r))
})

t.test('NaN, Infinity and strings where the metric should be: never a valid number', async t => {
  const judge = (metrics: Record<string, unknown>) => judgeObservation({ran: true, exit_code: 0, signal: null, timed_out: false, metrics, boundary: {clean: true, changed: []}, timeout_seconds: 10}, contract)
  t.match(judge(parseMetrics('{"score": NaN}').metrics!), {valid: false, needs_retry: {stop_reason: 'non_finite_metric'}})
  t.match(judge(parseMetrics('{"score": -Infinity}').metrics!), {valid: false, needs_retry: {stop_reason: 'non_finite_metric'}})
  t.match(judge({score: '5'}), {valid: false, needs_retry: {stop_reason: 'missing_metrics'}})
  t.match(judge({score: 'Infinity'}), {valid: false, needs_retry: {stop_reason: 'non_finite_metric'}}, 'the string a non-finite number is read as is still not finite')
  t.match(judge({score: [1]}), {valid: false})
  t.match(judge({score: {valueOf: 1}}), {valid: false})
  t.match(parseMetrics('[1, 2]'), {error: /not a JSON object/})
  // a key twice (a value the evaluator wrote unescaped could add one after its own): refused, naming its place, not the key
  t.same(parseMetrics('{"score": 0.1, "note": "", "score": 99}'), {error: 'a key appears twice in one object (at character 27): which value counts is not clear'})
  t.match(parseMetrics('{"a": {"k": 1, "k": 2}, "score": 1}'), {error: /a key appears twice/}, 'in a nested object too')
  t.match(parseMetrics('{"score": 1, "s\\u0063ore": 2}'), {error: /a key appears twice/}, 'compared decoded')
  t.same(parseMetrics('{"score": 1, "x": {"score": 2}}').metrics, {score: 1, x: {score: 2}}, 'the same key in two objects is fine')
  // (kept as the text "Infinity": a record holds finite numbers only)
  t.same(parseMetrics('{"score": 1e999, "nested": {"x": -1e999}}').metrics, {score: 'Infinity', nested: {x: '-Infinity'}})
  t.match(judge(parseMetrics('{"score": 1e999}').metrics!), {valid: false, needs_retry: {stop_reason: 'non_finite_metric'}})
  t.match(judge({score: 0.5}), {valid: true, metric: {value: 0.5}})
})

// Found by red-teaming: a finite but huge score (|x| ~ 1e308, from a params-only edit with a
// quadratic harness) made the gain, or its rounding, Infinity; the record was refused after
// the run, nothing was recorded, and every rerun of the attempt met the same error.
t.test('a huge score: a gain beyond a number is a needs_retry, a huge finite one is kept as it is', async t => {
  const judge = (score: number, baseline: number, finite = true) => judgeObservation({ran: true, exit_code: 0, signal: null, timed_out: false, metrics: {score}, boundary: {clean: true, changed: []}, timeout_seconds: 10}, {...contract, validity: {...contract.validity, finite_metrics: finite}}, {value: baseline})
  t.match(judge(-1e308, 1e308), {valid: false, needs_retry: {stop_reason: 'non_finite_metric'}, violations: [/beyond what a number holds/]})
  const big = judge(1e300, -1e300)
  t.match(big, {valid: true, outcome: 'positive', baseline: {gain: 2e300}})
  t.ok(Number.isFinite(big.baseline!.gain), 'the gain is a finite number a record holds')
  t.match(judgeObservation({ran: true, exit_code: 0, signal: null, timed_out: false, metrics: parseMetrics('{"score": 1e400}').metrics!, boundary: {clean: true, changed: []}, timeout_seconds: 10}, {...contract, validity: {...contract.validity, finite_metrics: false}}), {valid: false, needs_retry: {stop_reason: 'non_finite_metric'}}, 'even with finite_metrics off: no record holds Infinity')
})

t.test('a command that cannot start, or one that forks a child that outlives it, is bounded', async t => {
  const dir = checkout(t, '(sleep 30; echo late > late.txt) &\necho \'{"score": 2}\' > metrics.json\n')
  const r = await run(dir)
  t.equal(r.metrics!.score, 2)
  await new Promise(res => setTimeout(res, 300))
  t.notOk(fs.existsSync(path.join(dir, 'late.txt')), 'the group was killed with the command')
  const none = await runCommandEvaluator({spec: spec({command: 'no-such-program-exp-test'}), checkout: dir, seed: 1, repetition: 0, redact})
  t.match(none, {exit_code: 127, stderr: /cannot start no-such-program-exp-test/})
})

t.test('a timeout too large for a timer still waits instead of firing at once', async t => {
  const dir = checkout(t, 'echo \'{"score": 3}\' > metrics.json\n')
  const r = await run(dir, {timeout_seconds: 1e12})
  t.equal(r.timed_out, false)
  t.equal(r.metrics!.score, 3)
})

t.test('a process that leaves the group and keeps the pipes open does not hold the evaluation', async t => {
  const dir = checkout(t, 'setsid sh -c "sleep 20" &\necho \'{"score": 4}\' > metrics.json\n')
  const t0 = Date.now()
  const r = await run(dir)
  t.ok(Date.now() - t0 < 8000, `returned after the grace, not the timeout (${Date.now() - t0} ms)`)
  t.equal(r.timed_out, false)
  t.equal(r.metrics!.score, 4)
})

t.test('a metrics file nested 400,000 levels deep (under 1 MiB) is unreadable metrics, not a crash; 32 levels and brackets in strings are read', async t => {
  const deep = `{"score": 2, "d": ${'['.repeat(400_000)}${']'.repeat(400_000)}}`
  t.ok(deep.length < 1024 * 1024)
  const r = parseMetrics(deep)
  t.equal(r.metrics, undefined)
  t.match(r.error, /nested deeper than 32 levels/)
  const judged = judgeObservation({ran: true, exit_code: 0, signal: null, timed_out: false, metrics_error: r.error, boundary: {clean: true, changed: []}, timeout_seconds: 10}, contract)
  t.match(judged, {valid: false, needs_retry: {stop_reason: 'unparseable_metrics'}})
  const ok = parseMetrics(`{"score": 2, "d": ${'['.repeat(31)}"[[[[{{{{\\"["${']'.repeat(31)}}`)
  t.equal(ok.metrics?.score, 2, 'nesting at the limit, and brackets inside a string, are read')
})
