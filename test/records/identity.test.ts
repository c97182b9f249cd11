import t from 'tap'
import {KINDS, KIND_NAMES, kindOfId, parseRecordPath, recordIdAtPath, recordPath, type Kind} from '../../src/records/index.js'

/**
 * recordIdAtPath reads a record's own path from bytes (the full read of a large lane). It must
 * answer as parseRecordPath and the checks the reader made with it before: the folder is the
 * id's kind's, the shard the id's first two hex digits.
 */
function reference(path: string): string | undefined {
  const parsed = parseRecordPath(path)
  const kind = parsed && kindOfId(parsed.id)
  if (!parsed || !kind || KINDS[kind].dir !== parsed.dir || parsed.shard !== parsed.id.slice(3, 5)) return undefined
  return parsed.id
}

function atPath(path: string): string | undefined {
  // (in the middle of a larger buffer, as git's output gives it)
  const buf = Buffer.concat([Buffer.from('100644 blob 0123\t'), Buffer.from(path, 'utf8'), Buffer.from('\0more')])
  return recordIdAtPath(buf, 17, buf.length - 5)
}

t.test('every kind: its own path gives its id, and every one-byte change gives what parseRecordPath gives', async t => {
  let n = 0
  for (const kind of KIND_NAMES as Kind[]) {
    const id = `${KINDS[kind].prefix}-3fa9${'0123456789abcdef01234567'.slice(4)}`
    const path = recordPath(kind, id)
    t.equal(atPath(path), id, `${kind}: ${path}`)
    // each byte replaced by others that matter: a letter, a digit, a slash, an upper-case, a dot, a non-ASCII char
    for (let i = 0; i < path.length; i++) {
      for (const c of ['a', 'f', 'g', '0', '9', '/', 'A', '.', '-', 'é', '']) {
        const p = path.slice(0, i) + c + path.slice(i + 1)
        if (atPath(p) !== reference(p)) t.fail(`${JSON.stringify(p)}: ${atPath(p)} vs ${reference(p)}`)
        n++
      }
    }
  }
  t.ok(n > 5000, `${n} paths compared`)
})

t.test('paths of another shape are not records', async t => {
  const id = 'tr-3f9a00000000000000000000'
  for (const p of ['', 'x', '.json', `experience/traces/3f/${id}.jso`, `experience/traces/3f/${id}.json/`, `/experience/traces/3f/${id}.json`, `experience/traces//3f/${id}.json`, `experience/traces/3f/${id}x.json`, `research/notes/3f/${id}.json`, `experience/traces/3e/${id}.json`, `../../etc/passwd`, `experience/traces/3f/tr-3F9a00000000000000000000.json`, `experience/traces/3f/zz-3f9a00000000000000000000.json`]) {
    t.equal(atPath(p), reference(p), JSON.stringify(p))
    t.equal(atPath(p), undefined, `${JSON.stringify(p)} is not a record's path`)
  }
  // too short to hold anything: no read before the buffer
  t.equal(recordIdAtPath(Buffer.from('abc'), 0, 3), undefined)
})
