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

// Found by a sweep: a block map nested 3,000 levels deep (by indentation, no brackets) gave
// "YAML: Maximum call stack size exceeded".
t.test('block nesting is counted from the indentation: a map 3,000 deep is refused, a block scalar is not nesting', async t => {
  const block = (n: number) => Array.from({length: n}, (_, i) => `${'  '.repeat(i)}k${i}:`).join('\n') + `\n${'  '.repeat(n)}v: 1\n`
  t.ok(tooDeep(block(3000)) !== undefined)
  t.ok(tooDeep(block(MAX_YAML_DEPTH + 1)) !== undefined)
  t.equal(tooDeep(block(MAX_YAML_DEPTH - 2)), undefined)
  t.equal(tooDeep('k: |\n  a\n    b\n      c\nj: 2\n'), undefined, 'a block scalar of a few indented lines')
  t.ok(tooDeep(`k: |\n${Array.from({length: 300}, (_, i) => `${' '.repeat(i + 1)}x`).join('\n')}\nj: 2\n`) !== undefined, 'one indented stair-wise 300 times is refused too: a bound from the text, not a parse')
  const doc = parseDocument(block(3000))
  t.equal(doc.errors.length, 1)
  t.match(doc.errors[0]!.message, /nested deeper than 128 levels/)
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
