import t from 'tap'
import {parseDocument, tooDeep, MAX_YAML_DEPTH} from '../../src/vendor/yaml.js'
import {parseYamlOrJson} from '../../src/records/index.js'

// Found by a sweep: yaml recurses once per level of nesting; a 10 KB SKILL.md of 5,000 brackets
// overflowed its stack, and node then aborted (a V8 fatal error compiling a regular expression),
// a crash no try could catch. A text nested deeper than MAX_YAML_DEPTH is refused unparsed.
t.test('nesting is counted from the text: flow collections and sequences opened on one line, not brackets in scalars', async t => {
  const deep = MAX_YAML_DEPTH + 3
  t.equal(tooDeep(`k: ${'['.repeat(deep)}${']'.repeat(deep)}`), 3 + MAX_YAML_DEPTH)
  t.ok(tooDeep(`${'{a: '.repeat(deep)}1${'}'.repeat(deep)}`) !== undefined)
  t.ok(tooDeep(`${'- '.repeat(deep)}x`) !== undefined)
  t.ok(tooDeep(`k:\n  ${'[ '.repeat(deep)}`) !== undefined)
  for (const fine of [`k: a${'['.repeat(300)}`, `k: "${'['.repeat(300)}"`, `k: '${'{'.repeat(300)}'`, `# ${'['.repeat(300)}\nk: 1`, `k: ${'['.repeat(MAX_YAML_DEPTH)}${']'.repeat(MAX_YAML_DEPTH)}`, 'k: [1, [2, [3]], {a: [b]}]']) t.equal(tooDeep(fine), undefined, fine.slice(0, 24))
})

t.test('a text nested too deep is one error at its place, through every reader; never a crash', async t => {
  const text = `a: 1\nk: ${'['.repeat(5000)}${']'.repeat(5000)}\n`
  const doc = parseDocument(text)
  t.equal(doc.errors.length, 1)
  t.match(doc.errors[0]!.message, /nested deeper than 128 levels/)
  t.same(doc.errors[0]!.linePos?.[0], {line: 2, col: 3 + MAX_YAML_DEPTH + 1})
  try {
    await parseYamlOrJson(text, 'deep.yaml')
    t.fail('parsed')
  } catch (e) {
    t.match((e as Error).message, /deep\.yaml:2:\d+: nested deeper than 128 levels/)
  }
})
