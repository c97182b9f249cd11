import t from 'tap'
import {makeRedactor, redactDeep, withKey, withSecrets} from '../../src/redact/index.js'
import {REFUSED_SHAPES} from '../../src/redact/shapes.js'
import {secretScanner} from '../../src/redact/secrets.js'

// Found by an attack sweep: the redactor masked credential shapes first and replaced the home
// folder by `~` after, so a token glued to the home path (`/home/aliceghp_…`: a letter before
// `ghp_`, where a shape does not start) was left alone and came out as `~ghp_…`, which the
// store's check refuses. An agent's final answer stopped `exp run` (exit 2, nothing recorded),
// a drafted claim stopped `exp mine` after its evidence was written. The property: whatever
// the redactor hands on, the store's check passes.

const HOME = '/home/alice'
const ENV = {SERVICE_TOKEN: 'Zq8r9Xv2pLm4wY7kT3'}
const GHP = 'ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123'
const TOKENS = [
  GHP,
  `github_pat_${'A1b2C3'.repeat(4)}`,
  `sk-${'a1B2'.repeat(5)}`,
  'xoxb-0123456789-abcdef',
  'AKIAIOSFODNN7EXAMPLE',
  `glpat-${'A1b2'.repeat(5)}`,
  `hf_${'aBcD1'.repeat(7)}`,
  `npm_${'Zy9x'.repeat(9)}`,
  `sk_live_${'q1W2e3R4'.repeat(3)}`,
  `AIza${'Sy0aBcDeFgHiJkLmNoPqRsTuVwXyZ0123'}`,
  'eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.SflKxwRJSMeKKF2QT4',
  `ya29.${'a0AfH6SMBx'.repeat(3)}`,
  `SG.${'aB3-cD4_eF'.repeat(2)}gh.${'Ij5kL6mN7o'.repeat(4)}pQr`,
  `Bearer ${'abcDEF123.'.repeat(3)}`,
  'Authorization: Basic dXNlcjpwYXNzd29yZA==',
  '-----BEGIN RSA PRIVATE KEY-----',
  'https://user:s3cretpassword@example.com/x',
  ENV.SERVICE_TOKEN,
]

/** the store's own check (src/store/secrets.ts refuses a record when it says anything) */
const storeCheck = secretScanner({...ENV, HOME})

t.test('a token glued to the home path, after ~, after /, in a URL, split by the home replacement: nothing the store refuses is left', async t => {
  const redact = makeRedactor({env: ENV, home: HOME})
  const around = (x: string) => [
    `${HOME}${x}`, // glued to the home path: a letter before it
    `done ${HOME}${x} and more`,
    `${HOME}/${x}`,
    `~${x}`,
    `/${x}`,
    `/tmp/a${x}`,
    `/home/bob${x}`, // another user's home folder
    `/Users/bob/${x}`,
    `x${HOME}${x}${HOME}`,
    `https://github.com/o/r?token=${x}`,
    `https://${x}@github.com/o/r.git`,
    `https://user:${x}@example.com${HOME}`,
    `file://${HOME}${x}`,
    `${x.slice(0, 4)}${HOME}${x.slice(4)}`, // the home path inside the token
    `${x}${HOME}`,
    `AKIAIOSFODNN7EXAMPLE${x}`, // a key id glued before it: the token's boundary appears only once the id is masked
    `${HOME}AKIAIOSFODNN7EXAMPLE${x}`,
    `"${x}"`,
    `\n${x}`,
  ]
  for (const x of TOKENS) {
    for (const input of around(x)) {
      const out = redact(input)
      t.equal(storeCheck(out), undefined, `${JSON.stringify(input)} -> ${JSON.stringify(out)}`)
    }
  }
  t.equal(redact(`done ${HOME}${GHP}`), 'done ~[redacted]', 'the home folder is replaced, then the token masked')
  t.equal(redact(`${HOME}/work and /home/bob/x`), '~/work and ~/x', 'paths are kept as they were')
})

t.test('the property over random texts made of tokens, home paths and the characters around them', async t => {
  // a seeded generator: the same texts on every run
  let seed = 0x9e3779b9
  const rand = (n: number) => {
    seed = (Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0
    return seed % n
  }
  const parts = [...TOKENS, HOME, `${HOME}/`, '/home/bob', '~', '/', 'a', 'Z9', '_', '-', '.', ':', '@', '://', 'https://', ' ', '\n', '"', 'Bearer ', 'ghp_', 'AKIA', 'sk-', 'x']
  const redactors = [makeRedactor({env: ENV, home: HOME}), makeRedactor({env: ENV, home: HOME, paths: true}), withKey(withSecrets(makeRedactor({env: ENV, home: HOME}), ['handedvalue-0123456789']), Buffer.alloc(32, 7))]
  let checked = 0
  for (let i = 0; i < 3000; i++) {
    const text = Array.from({length: 1 + rand(8)}, () => parts[rand(parts.length)]!).join('')
    for (const redact of redactors) {
      const out = redact(text)
      if (storeCheck(out) !== undefined) t.fail(`${JSON.stringify(text)} -> ${JSON.stringify(out)}: ${storeCheck(out)}`)
      checked++
    }
  }
  t.pass(`${checked} redacted texts pass the store's check`)
})

t.test('redaction is idempotent and keeps ordinary text; a deep copy passes too, keys included', async t => {
  const redact = makeRedactor({env: ENV, home: HOME})
  for (const x of TOKENS) {
    const once = redact(`${HOME}${x}`)
    t.equal(redact(once), once, `idempotent: ${once}`)
  }
  const keep = `tr-${'a'.repeat(24)} sha256:${'b'.repeat(64)} ${'c'.repeat(40)} /usr/bin tokens=12 the auth: flow`
  t.equal(redact(keep), keep)
  const deep = redactDeep({[`${HOME}${GHP}`]: [`${HOME}${GHP}`, {answer: `~${GHP}`}]}, redact)
  t.equal(storeCheck(JSON.stringify(deep)), undefined, JSON.stringify(deep))
})

t.test('the store refuses by the shapes of one list (shapes.ts), the one the redactor settles against', async t => {
  const bare = secretScanner({})
  for (const s of REFUSED_SHAPES) {
    const sample = TOKENS.find(x => s.re.test(x))
    t.ok(sample, `a sample of ${s.what}`)
    t.equal(bare(`a note: ${sample}`), s.what, `the store refuses ${s.what}`)
  }
})
