import t from 'tap'
import {exp, expJson} from '../helpers/cli.js'
import {makeRepo, git} from '../helpers/repo.js'
import {GitRecordStore} from '../../src/store/index.js'
import {MemoryRecordStore} from '../../src/store/memory.js'
import {secretScanner} from '../../src/redact/secrets.js'
import {REFUSED_SHAPES, joinedShapes} from '../../src/redact/shapes.js'
import {sampleDraft} from '../helpers/records.js'

// credential-shaped fixtures, assembled so that this file holds none whole
const OPENAI = ['sk', 'proj-abcdefghijklmnopqrstuvwxyz0123'].join('-')
const GITHUB = ['ghp', 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'].join('_')

t.test('the scanner finds credential shapes and credential variables, not ordinary text', async t => {
  const scan = secretScanner({MY_API_KEY: 'k3y-value-0123456789', GIT_AUTHOR_EMAIL: 'ci@exp.invalid', SSH_AUTH_SOCK: '/tmp/ssh-agent.sock', SHORT_TOKEN: 'abc', GOOGLE_APPLICATION_CREDENTIALS: import.meta.dirname ?? '/tmp'})
  t.equal(scan(`use ${OPENAI} here`), 'an API key (sk-…)')
  t.equal(scan(`push with ${GITHUB}`), 'a GitHub token')
  t.equal(scan('Authorization: Bearer abcdefghijklmnop0123'), 'a bearer token')
  t.equal(scan(['AKIA', 'ABCDEFGHIJKLMNOP'].join('')), 'an AWS access key id')
  t.equal(scan(['-----BEGIN OPENSSH ', 'PRIVATE KEY-----'].join('')), 'a private key')
  t.equal(scan('value k3y-value-0123456789 leaked'), 'the value of $MY_API_KEY')
  for (const ok of [
    'the password: reset flow needs approval',
    'token: see the docs',
    'mail ci@exp.invalid', // GIT_AUTHOR_EMAIL: AUTHOR is not a credential name
    'socket /tmp/ssh-agent.sock',
    `credentials file at ${import.meta.dirname ?? '/tmp'}`, // a variable naming a credential file holds a path
    'abc', // too short to look for
    'tr-0123456789abcdef01234567 sha256:9e48b34398be85d96edb5f791d45cd6885ac55463514ae2d3daeac1d3d0a18f4',
    'commit 11a4d8854e50360d590c71a31caa2dc494ab1def',
    'task-runner, desk-top, risk-assessment-of-the-quarterly-report',
  ])
    t.equal(scan(ok), undefined, ok)
})

t.test('exp append refuses a record holding a credential, names the input and field, and writes nothing', async t => {
  const repo = await makeRepo(t)
  const r = await exp(['append', 'note', '-', '--lane', 'x'], {cwd: repo, input: JSON.stringify({text: `my key is ${OPENAI}`})})
  t.equal(r.code, 2)
  t.match(r.stderr, /error: <stdin>: note record: body\.text holds an API key \(sk-…\); records are append-only/)
  t.match(r.stderr, /hint: take the secret out/)
  t.notMatch(r.stderr, OPENAI, 'the error does not repeat the secret')
  const env = {DEPLOY_TOKEN: 'tok-9f8e7d6c5b4a3210'}
  const batch = `{"text":"fine"}\n{"text":"fine too","about":[]}\n{"text":"deploy with tok-9f8e7d6c5b4a3210"}\n`
  const b = await exp(['append', 'note', '-', '--batch', '--lane', 'x'], {cwd: repo, input: batch, env})
  t.equal(b.code, 2)
  t.match(b.stderr, /<stdin>:3: note record: body\.text holds the value of \$DEPLOY_TOKEN/)
  const k = await exp(['append', 'note', '-', '--lane', 'x', '--key', `k/${GITHUB}`], {cwd: repo, input: '{"text":"a"}'})
  t.equal(k.code, 2)
  t.match(k.stderr, /note record: key holds a GitHub token/)
  const fs = await import('node:fs')
  const path = await import('node:path')
  fs.writeFileSync(path.join(repo, '.env'), `OPENAI_API_KEY=${OPENAI}\n`)
  const a = await exp(['append', 'note', '-', '--lane', 'x', '--artifact', '.env'], {cwd: repo, input: '{"text":"the settings"}'})
  t.equal(a.code, 2)
  t.match(a.stderr, /note record: the artifact "\.env" holds an API key/)
  fs.writeFileSync(path.join(repo, `key-${GITHUB}.txt`), 'harmless\n')
  const n = await exp(['append', 'note', '-', '--lane', 'x', '--artifact', `key-${GITHUB}.txt`], {cwd: repo, input: '{"text":"the settings"}'})
  t.equal(n.code, 2)
  t.match(n.stderr, /note record: an artifact's name holds a GitHub token/)
  t.equal((await git(repo, 'for-each-ref', 'refs/research/')).trim(), '', 'no lane was written')
  t.same(await expJson(['ledger'], {cwd: repo}), [])
  // the same text without the secret goes in
  const ok = await exp(['append', 'note', '-', '--lane', 'x'], {cwd: repo, input: '{"text":"my key is [redacted]"}'})
  t.equal(ok.code, 0, ok.stderr)
})

t.test('every writer goes through the check: the store API, volatile fields, keys of a body, the memory store', async t => {
  const repo = await makeRepo(t)
  const s = await GitRecordStore.open(repo)
  t.teardown(() => s.close())
  await t.rejects(s.append({...sampleDraft('note', 1), volatile: {note: `x ${GITHUB}`}}, {lane: 'a'}), {code: 'E_SECRET', message: /volatile\.note holds a GitHub token/})
  await t.rejects(s.append({kind: 'note', body: {text: 'a', about: []}, cites: [], volatile: {[OPENAI]: 1}}, {lane: 'a'}), {code: 'E_SECRET', message: /in a key/})
  await t.rejects(s.appendBatch([sampleDraft('note', 2), {kind: 'note', body: {text: `Bearer abcdefghijklmnop0123`}}], {lane: 'a'}), {code: 'E_SECRET'})
  t.equal((await s.ledger()).size, 0, 'a batch with one bad record writes none')
  const m = new MemoryRecordStore()
  await t.rejects(m.append({kind: 'note', body: {text: OPENAI}}, {lane: 'a'}), {code: 'E_SECRET'})
})

t.test('what the redactor masks, the store no longer refuses: a leaking agent is recorded masked, not refused', async t => {
  const {makeRedactor} = await import('../../src/redact/index.js')
  const env = {OPENAI_API_KEY: 'plain-secret-value-42', DEPLOY_TOKEN: 'tok-9f8e7d6c5b4a3210'}
  const redact = makeRedactor({env})
  const scan = secretScanner(env)
  const leaks = [
    OPENAI,
    GITHUB,
    'Bearer abcdefghijklmnop0123',
    ['AKIA', 'ABCDEFGHIJKLMNOP'].join(''),
    ['AIza', 'SyA-abcdefghijklmnopqrstuvwxyz0123'].join(''),
    ['xoxb', '1234567890-abcdefghij'].join('-'),
    ['eyJhbGciOiJIUzI1NiJ9', 'eyJzdWIiOiIxMjM0NTY3ODkwIn0', 'dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'].join('.'),
    ['-----BEGIN RSA PRIVATE', 'KEY-----\nMIIEow\n-----END RSA PRIVATE', 'KEY-----'].join(' '),
    'plain-secret-value-42',
    'tok-9f8e7d6c5b4a3210',
  ]
  for (const leak of leaks) {
    const text = `the agent printed ${leak} to stderr`
    t.ok(scan(text), `refused as it is: ${leak.slice(0, 8)}…`)
    t.equal(scan(redact(text)), undefined, `written once masked: ${leak.slice(0, 8)}…`)
  }
})

// Found by red-teaming: the body's canonical JSON was scanned in one pass, where a newline is
// `\n` — a letter before the token, so no word boundary: a token on a line of its own (a
// pasted log, a YAML block) was written, into the commit subject too. And a lane name was
// the one string of the envelope not looked at.
t.test('a token after a newline, a tab or an underscore, and one in the lane name, are refused', async t => {
  const repo = await makeRepo(t)
  const s = await GitRecordStore.open(repo)
  t.teardown(() => s.close())
  const jwt = ['eyJhbGciOiJIUzI1NiJ9', 'eyJzdWIiOiIxMjM0NTY3ODkwIn0', 'dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'].join('.')
  for (const text of [`token below\n${GITHUB}`, `key\n${OPENAI}`, `id\n${['AKIA', 'IOSFODNN7EXAMPLE'].join('')}`, `jwt\t${jwt}`, `slack\r\n${['xoxb', '1234567890-abcdefghij'].join('-')}`, `quoted "${GITHUB}"`, `x_${GITHUB}`, `my_${OPENAI}`]) {
    await t.rejects(s.append({kind: 'note', body: {text}}, {lane: 'a'}), {code: 'E_SECRET', message: /body\.text holds/}, JSON.stringify(text))
  }
  await t.rejects(s.append(sampleDraft('note', 1), {lane: GITHUB}), {code: 'E_SECRET', message: /the lane name \(--lane, EXP_LANE or git config exp\.lane\) holds a GitHub token/})
  const m = new MemoryRecordStore()
  await t.rejects(m.append(sampleDraft('note', 1), {lane: OPENAI}), {code: 'E_SECRET'})
  // ordinary text with newlines and escapes still goes in
  const ok = await s.append({kind: 'note', body: {text: 'line one\nline two\ttabbed "quoted" \\ back\nsk-short task-runner'}}, {lane: 'a'})
  t.equal(ok.status, 'created')
  t.equal((await s.ledger()).size, 1, 'nothing else was written')
  const y = await exp(['append', 'note', '-', '--lane', 'b'], {cwd: repo, input: `text: |\n  token below\n  ${GITHUB}\n`})
  t.equal(y.code, 2, y.stdout)
  t.match(y.stderr, /body\.text holds a GitHub token/)
})

t.test('a password in a URL and a Basic authorization header are refused by the store; an agent spec holding a key is a usage error before anything runs', async t => {
  const scan = secretScanner({})
  t.equal(scan(['https://bob', 'hunter2pass@example.com/x'].join(':')), 'credentials in a URL')
  t.equal(scan(['postgres://admin', 'S3cretPassw0rd@db.internal:5432/prod'].join(':')), 'credentials in a URL')
  // (the URL shape is tried only on text holding `://`, apart from the other shapes: shapes.ts `needs`)
  t.equal(scan(`see https://example.com/docs, then ${['db at postgres://admin', 'S3cretPassw0rd@db/prod'].join(':')}`), 'credentials in a URL', 'after a URL without credentials')
  t.equal(scan(`${'x'.repeat(5000)} ${['https://bob', 'hunter2pass@example.com'].join(':')} sk-${'a'.repeat(20)}`), 'credentials in a URL', 'with another shape after it')
  t.equal(scan(`sk-${'a'.repeat(20)} ${['https://bob', 'hunter2pass@example.com'].join(':')}`), 'an API key (sk-…)', 'with another shape before it')
  t.equal(scan(`Authorization: Basic ${'YWxhZGRpbjpvcGVu'}c2VzYW1l`), 'a Basic authorization header')
  // in any case (HTTP/2 tools print header names in lower case): the shape had /i, lost where the
  // shapes are joined into one pattern, and `authorization: Basic …` was stored
  for (const header of ['authorization: Basic', 'AUTHORIZATION: BASIC', 'authorization:basic']) t.equal(scan(`${header} ${'YWxhZGRpbjpvcGVu'}c2VzYW1l`), 'a Basic authorization header', header)
  t.same(REFUSED_SHAPES.filter(s => s.re.flags !== ''), [], 'no shape has a flag (the joined pattern would drop it)')
  t.throws(() => joinedShapes([{re: /basic/i}]), /has flags of its own \(i\)/, 'a flagged shape is refused where shapes are joined')
  for (const ok of ['ssh://git@github.com:22/org/repo', 'git@github.com:org/repo.git', 'https://example.com/a:b@c', 'see https://user@host/path', 'time 10:30@home', 'Basic research: a summary'])
    t.equal(scan(ok), undefined, ok)
  const repo = await makeRepo(t)
  const r = await exp(['append', 'note', '-', '--lane', 'x'], {cwd: repo, input: JSON.stringify({text: ['db at postgres://admin', 'S3cretPassw0rd@db/prod'].join(':')})})
  t.equal(r.code, 2)
  t.match(r.stderr, /body\.text holds credentials in a URL/)
  const h = await exp(['append', 'note', '-', '--lane', 'x'], {cwd: repo, input: JSON.stringify({text: `curl said: authorization: Basic ${Buffer.from('ci:HEADERSECRET').toString('base64')}`})})
  t.equal(h.code, 2, h.stdout)
  t.match(h.stderr, /body\.text holds a Basic authorization header/)
  const run = await exp(['run', 'validation', '--agent', `command:node agent.mjs --api-key ${OPENAI}`, '--lane', 'y', '--scenarios', '.'], {cwd: repo})
  t.equal(run.code, 2, run.stderr)
  t.match(run.stderr, /the agent spec \(--agent\) holds an API key \(sk-…\)/)
  t.match(run.stderr, /hint: hand the agent its secrets in the environment, named with --env/)
  t.equal((await git(repo, 'for-each-ref', 'refs/research/')).trim(), '', 'nothing was recorded')
})

// A SendGrid API key (SG., a 22-character key id, a 43-character secret, base64url) was neither
// refused nor masked: `exp append` wrote one into a note, and an agent's run into its trace.
t.test('a SendGrid API key is refused by the store and masked by the redactor; near misses are ordinary text', async t => {
  const {makeRedactor} = await import('../../src/redact/index.js')
  const id = 'aB3dE5fG7hI9jK1lM3n_-p'
  const secret = 'Qr7sT9uV1wX3yZ5aB7cD9eF1gH3iJ5kL7mN9oP1qR-_'
  const key = ['SG', id, secret].join('.')
  t.equal(id.length + secret.length, 22 + 43)
  const scan = secretScanner({})
  const redact = makeRedactor({env: {}, home: '/nonexistent'})
  for (const text of [key, `mail with ${key}`, `key\n${key}`, `x_${key}`, `"${key}"`, `${key}.`]) {
    t.equal(scan(text), 'a SendGrid API key', JSON.stringify(text))
    const masked = redact(text)
    t.notOk(masked.includes(secret), `masked: ${masked}`)
    t.equal(scan(masked), undefined, `and nothing left to refuse: ${masked}`)
  }
  for (const near of [
    ['SG', id.slice(1), secret].join('.'), // a key id of 21 characters
    ['SG', id, secret.slice(1)].join('.'), // a secret of 42
    ['SG', id + secret].join('.'), // no dot between them
    ['sg', id, secret].join('.'), // not SendGrid's prefix
    ['SG', id.slice(0, 10) + '+' + id.slice(11), secret].join('.'), // outside base64url
    ['SG', id, secret.slice(0, 20) + '/' + secret.slice(21)].join('.'),
    `MSG.${id}.${secret}`, // SG. inside a word
    'SG.the-subject.line of a message',
  ]) {
    t.equal(scan(`a note: ${near}`), undefined, near)
    t.equal(redact(`a note: ${near}`), `a note: ${near}`, `kept: ${near}`)
  }
  const repo = await makeRepo(t)
  const r = await exp(['append', 'note', '-', '--lane', 'x'], {cwd: repo, input: JSON.stringify({text: `mail with ${key}`})})
  t.equal(r.code, 2)
  t.match(r.stderr, /error: <stdin>: note record: body\.text holds a SendGrid API key; records are append-only/)
  t.notMatch(r.stderr, secret, 'the error does not repeat the secret')
  t.equal((await git(repo, 'for-each-ref', 'refs/research/')).trim(), '', 'no lane was written')
})
