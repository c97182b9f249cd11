import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {makeRedactor, redactDeep} from '../../src/redact/index.js'
import {FileSink, MemorySink, NULL_SINK, openEventSink} from '../../src/events/index.js'
import {tempDir} from '../helpers/repo.js'

const KEY = 'sk-proj-AbCdEfGhIjKlMnOpQrStUv0123456789'

t.test('secrets are masked by value, by shape and by assignment; ids, digests and oids are kept', async t => {
  const r = makeRedactor({env: {OPENAI_API_KEY: 'plainsecretvalue42', PATH: '/usr/bin', SHORT_TOKEN: 'x'}, home: '/home/alice'})
  const text = `key plainsecretvalue42 and ${KEY}, ghp_${'a'.repeat(36)}, AKIAABCDEFGHIJKLMNOP, Authorization: Bearer abc.def.ghijkl, password=hunter2222, /home/alice/work and /home/bob/x`
  const out = r(text)
  for (const leak of ['plainsecretvalue42', KEY, 'ghp_', 'AKIA', 'abc.def', 'hunter2222', '/home/']) t.notOk(out.includes(leak), leak)
  t.match(out, /~\/work and ~\/x/)
  const keep = `tr-${'a'.repeat(24)} sha256:${'b'.repeat(64)} ${'c'.repeat(40)} /usr/bin tokens=12`
  t.equal(r(keep), keep)
  const pem = ['-----BEGIN OPENSSH PRIVATE', 'KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n-----END OPENSSH PRIVATE', 'KEY-----'].join(' ')
  t.equal(r(`key:\n${pem}\nend`), 'key:\n[redacted]\nend', 'a private key block, whole')
})

// Found by an attack sweep: these were stored as they were, in notes and in an evaluator's
// public metrics (an attempt's code can read ~/.aws/credentials, ~/.npmrc, ~/.netrc)
t.test('more credential shapes: GitLab, Hugging Face, npm, Stripe, npmrc, AWS credentials, netrc, docker config', async t => {
  const r = makeRedactor({env: {}})
  const secrets = {
    gitlab: `glpat-${'A1b2'.repeat(5)}`,
    hf: `hf_${'aBcD1'.repeat(7)}`,
    npm: `npm_${'Zy9x'.repeat(9)}`,
    stripe: `sk_live_${'q1W2e3R4'.repeat(3)}`,
    npmrc: 'NpmRcAuthT0kenValue',
    aws: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    netrc: 'n3trcPassw0rd',
    docker: Buffer.from('me:dockerpassword').toString('base64'),
  }
  const text = [
    `tokens ${secrets.gitlab} ${secrets.hf} ${secrets.npm} ${secrets.stripe}`,
    `//registry.npmjs.org/:_authToken=${secrets.npmrc}`,
    `aws_secret_access_key = ${secrets.aws}`,
    `machine api.example.com login me password ${secrets.netrc}`,
    `{"auths": {"ghcr.io": {"auth": "${secrets.docker}"}}}`,
  ].join('\n')
  const out = r(text)
  for (const [name, v] of Object.entries(secrets)) t.notOk(out.includes(v), name)
  t.match(out, /machine api\.example\.com login me password \[redacted\]/)
  // and the store refuses the well-known shapes outright
  const {secretScanner} = await import('../../src/redact/secrets.js')
  for (const v of [secrets.gitlab, secrets.hf, secrets.npm, secrets.stripe]) t.ok(secretScanner({})(`a note with ${v}`), v.slice(0, 6))
  const keep = 'the auth: flow, tokens: 12, oauth=x, sk_test_ is documentation, hf_ alone'
  t.equal(r(keep), keep, 'ordinary text is kept')
})

// Found by an attack sweep: the store refused `x_AKIA…` (its scanner looks where no letter or
// digit is before a shape) while the redactor let it through (`\b`: `_` is a word character),
// so an agent naming a file that way stopped the attempt's observation for good. Everything
// the store refuses must be masked first; and a PGP key block and a Google OAuth token were neither.
t.test('the redactor masks everything the store refuses: x_AKIA…, x_AIza…, x_eyJ…, a PGP private key, ya29. tokens', async t => {
  const {secretScanner} = await import('../../src/redact/secrets.js')
  const scan = secretScanner({})
  const r = makeRedactor({env: {}})
  const samples = [
    'x_AKIAIOSFODNN7EXAMPLE.json',
    `x_AIza${'Sy0aBcDeFgHiJkLmNoPqRsTuVwXyZ0123'}`,
    `x_eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.SflKxwRJSMeKKF2QT4`,
    '-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF0abc\n-----END PGP PRIVATE KEY BLOCK-----',
    `ya29.${'a0AfH6SMBx'.repeat(3)}`,
  ]
  for (const v of samples) {
    t.ok(scan(`a note: ${v}`), `the store refuses ${v.slice(0, 12)}`)
    const masked = r(`a note: ${v}`)
    t.equal(scan(masked), undefined, `and after masking there is nothing to refuse: ${masked}`)
  }
  t.equal(r('9AKIA is part of a word, AKIAS alone is short'), '9AKIA is part of a word, AKIAS alone is short')
})

// Found by an attack sweep: an AWS key id with a digit or letter before it (`9AKIA…`) or after
// it passed both checks; so did a value the run handed its agent, printed hex- or base64-encoded.
t.test('an AWS key id is found wherever it stands, and a handed secret in hex, base64 or percent-encoding is masked and refused', async t => {
  const {secretScanner} = await import('../../src/redact/secrets.js')
  const aws = ['AKIA', 'IOSFODNN7EXAMPLE'].join('')
  const bare = makeRedactor({env: {}, home: '/nonexistent'})
  for (const v of [`9${aws}`, `x${aws}9`, `ASIA${aws.slice(4)}`]) {
    t.ok(secretScanner({})(`key ${v}`), `the store refuses ${v}`)
    t.notOk(bare(`key ${v}`).includes(aws.slice(4)), `the redactor masks ${v}`)
  }
  const secret = 'tok-Zq8#r9/Xv2!pLm4@wY7'
  const env = {SERVICE_TOKEN: secret}
  const r = makeRedactor({env, home: '/nonexistent'})
  const scan = secretScanner(env)
  const b = Buffer.from(secret)
  const encoded = {
    hex: b.toString('hex'),
    HEX: b.toString('hex').toUpperCase(),
    base64: b.toString('base64'),
    base64url: b.toString('base64url'),
    // inside a longer blob, at each alignment
    'base64 +1': Buffer.concat([Buffer.from('{'), b, Buffer.from('}')]).toString('base64'),
    'base64 +2': Buffer.concat([Buffer.from('{"'), b, Buffer.from('"}')]).toString('base64'),
    percent: encodeURIComponent(secret),
  }
  for (const [form, text] of Object.entries(encoded)) {
    const out = r(`printed ${text} here`)
    t.ok(out.includes('[redacted]'), `${form} is masked: ${out}`)
    // what is left of it is at most a group's worth at either end: no run of the value's own
    t.ok(out.replace('[redacted]', '').length <= 'printed  here'.length + 8, `${form}: little of it is left`)
    t.equal(scan(`printed ${text} here`), 'the value of $SERVICE_TOKEN', `the store refuses ${form}`)
  }
  t.equal(r('ordinary words and a digest sha256:' + 'ab'.repeat(32)), 'ordinary words and a digest sha256:' + 'ab'.repeat(32), 'ordinary text is kept')
})

t.test('private ids are hidden as whole words only', async t => {
  const r = makeRedactor({private: ['onb-1', 'onb-12'], home: '/nonexistent'})
  t.equal(r('onb-1 onb-12 onb-123 xonb-1'), '[private] [private] onb-123 xonb-1')
  t.same(redactDeep({task: 'onb-1', list: ['onb-12', 3], nested: {'onb-1': true}}, r), {task: '[private]', list: ['[private]', 3], nested: {'[private]': true}})
})

// a redactor remembers what it made of short texts (redact/index.ts): asked again, or after it
// has forgotten them, it answers as it did; two redactors never share what they remember
t.test('a redactor answers the same text the same way, remembered or not, and each its own way', async t => {
  const r = makeRedactor({env: {API_TOKEN: 'plainsecretvalue42'}, private: ['onb-1'], home: '/home/alice'})
  const other = makeRedactor({home: '/nonexistent'})
  const texts = Array.from({length: 10_000}, (_, i) => `${i % 3 === 0 ? 'plainsecretvalue42' : i % 3 === 1 ? `ghp_${String(i).padStart(36, 'x')}` : 'onb-1'} #${i % 9000}`)
  const first = texts.map(r)
  for (const [i, out] of first.entries()) {
    if (/plainsecretvalue42|ghp_|onb-1 /.test(out)) t.fail(`kept in ${out} (text ${i})`)
  }
  t.same(texts.map(r), first, 'the same answers after more texts than it remembers')
  t.equal(other('plainsecretvalue42 onb-1'), 'plainsecretvalue42 onb-1', 'another redactor: its own secrets only')
  t.equal(r('plainsecretvalue42 onb-1'), '[redacted] [private]')
  const long = `${'a'.repeat(300)} plainsecretvalue42`
  t.equal(r(long), `${'a'.repeat(300)} [redacted]`, 'a long text, not remembered, redacted all the same')
})

t.test('a file sink numbers, stamps and redacts every event before it is written', async t => {
  const file = path.join(tempDir(t), 'sub', 'events.jsonl')
  const sink = new FileSink(file, {env: {OPENAI_API_KEY: KEY}, now: () => new Date('2026-01-01T00:00:00Z')})
  sink.emit({event: 'attempt_recorded', run: 'mf-1', task: 'onb-3', reason: `crashed with ${KEY}`})
  sink.hide(['onb-3'])
  sink.emit({event: 'verification_completed', run: 'mf-1', task: 'onb-3', status: 'failed'})
  await sink.close()
  const text = fs.readFileSync(file, 'utf8')
  t.notOk(text.includes(KEY))
  const lines = text.trim().split('\n').map(l => JSON.parse(l))
  t.same(lines.map(l => [l.seq, l.at, l.event, l.task]), [[1, '2026-01-01T00:00:00.000Z', 'attempt_recorded', 'onb-3'], [2, '2026-01-01T00:00:00.000Z', 'verification_completed', '[private]']])
})

t.test('no flag and no EXP_EVENTS: the null sink; EXP_EVENTS names a file relative to cwd', async t => {
  t.equal(openEventSink(undefined, {env: {}}), NULL_SINK)
  t.equal(NULL_SINK.enabled, false)
  const dir = tempDir(t)
  const sink = openEventSink(undefined, {env: {EXP_EVENTS: 'ev.jsonl'}, cwd: dir})
  sink.emit({event: 'loop_completed', run: 'r'})
  await sink.close()
  t.ok(fs.existsSync(path.join(dir, 'ev.jsonl')))
  t.throws(() => openEventSink(path.join(dir, 'ev.jsonl', 'nope'), {env: {}}), {code: 'E_USAGE'})
  const m = new MemorySink({})
  m.emit({event: 'recall_started', run: 'r', iteration: 2})
  t.match(m.events, [{seq: 1, event: 'recall_started', iteration: 2}])
})

t.test('redactDeep copies a "__proto__" key as a key, never as the copy\'s prototype', async t => {
  const copy = redactDeep(JSON.parse('{"__proto__": {"score": 100}, "a": 1}') as Record<string, unknown>, s => s)
  t.equal(Object.getPrototypeOf(copy), Object.prototype)
  t.equal((copy as {score?: number}).score, undefined)
  t.same(Object.keys(copy), ['__proto__', 'a'])
  t.equal(JSON.stringify(copy), '{"__proto__":{"score":100},"a":1}')
})
