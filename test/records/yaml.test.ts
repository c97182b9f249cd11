import t from 'tap'
import {strictYaml} from '../../src/records/yaml.js'
import {parseLocated} from '../../src/scenarios/yaml.js'
import {checkPurpose} from '../../src/skills/purpose.js'
import {readFrontmatter} from '../../src/skills/frontmatter.js'
import {parseYamlOrJson} from '../../src/records/index.js'

/**
 * One YAML reader (src/records/yaml.ts) for records, scenarios and contracts, PURPOSE.yaml and
 * SKILL.md frontmatter: the same refusals, each put in its caller's shape with its position.
 */
const BOMB = ['a: &a ["x","x","x","x","x","x","x","x","x"]', 'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]', 'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]', 'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]', 'e: [*d,*d,*d,*d,*d,*d,*d,*d,*d]'].join('\n')

t.test('each refusal with its position, and no value', async t => {
  const cases: [string, string, {line?: number; column?: number; message: RegExp}][] = [
    ['an unknown tag', 'name: x\nrun: !!js/function "f"\n', {line: 2, column: 6, message: /exp reads plain YAML/}],
    ['a key twice', 'a: 1\na: 2\n', {line: 2, column: 1, message: /unique/i}],
    ['a glob left unquoted', 'files:\n  - README.md\n  - *.py\n', {line: 3, column: 5, message: /^\*\.py is an alias of no anchor set before it: .* must be quoted \("\*\.py"\)/}],
    ['a lone UTF-16 surrogate', 'a: ok\nb: ["x", "\\ud800"]\n', {line: 2, column: 10, message: /^\$\.b\[1\]: a lone UTF-16 surrogate \(\\ud800\) is not a character/}],
    ['a lone surrogate in a key', 'a:\n  "k\\udc00": 1\n', {line: 2, column: 3, message: /^\$\.a \(the key "k\\udc00"\): a lone UTF-16 surrogate/}],
    ['an alias bomb', BOMB, {message: /^too many YAML alias expansions \(more than 100\): refused as a possible alias bomb$/}],
    ['a syntax error', 'a: [1, 2\n', {message: /./}],
  ]
  for (const [what, text, problem] of cases) {
    const y = strictYaml(text)
    t.equal(y.value, undefined, what)
    t.equal(y.problems.length > 0, true, what)
    t.match(y.problems[0], problem, what)
    if (problem.line === undefined && what === 'an alias bomb') t.equal(y.problems[0]!.line, undefined, 'an alias bomb is of the whole document')
  }
  t.same(strictYaml('a: &x 1\nb: *x\n').value, {a: 1, b: 1}, 'a few aliases still work')
  t.match(strictYaml(BOMB.split('\n').slice(0, 3).join('\n'), {maxAliases: 5}).problems, [{message: /more than 5/}], 'the limit is the caller\'s')
})

t.test('every reader refuses alike, in its own shape', async t => {
  const glob = 'files:\n  - *.py\n'
  await t.rejects(parseYamlOrJson(glob, 'r.yaml'), {code: 'E_PARSE', message: /^r\.yaml:2:5: \*\.py is an alias of no anchor/}, 'a record')
  t.match(parseLocated(glob).errors, [{line: 2, column: 5, message: /\*\.py is an alias of no anchor/}], 'a scenario or a contract')
  t.match(checkPurpose(glob).problems, [{rule: 'purpose/yaml', line: 2, column: 5, message: /^invalid YAML: \*\.py is an alias of no anchor/}], 'PURPOSE.yaml')
  t.match(readFrontmatter(['---', 'name: x', 'files:', '  - *.py', '---']).errors, [{line: 4, column: 5, message: /\*\.py is an alias of no anchor/}], 'SKILL.md frontmatter: at its line in the file')
  t.match(readFrontmatter(['---', ...BOMB.split('\n'), '---']).errors, [{line: 2, message: /alias bomb/}], 'a bomb in a frontmatter: at its first line')
  // (PURPOSE.yaml and a frontmatter accepted "\ud800" when the check was their callers')
  const lone = 'name: x\ndescription: "a\\ud800"\n'
  await t.rejects(parseYamlOrJson(lone, 'r.yaml'), {message: /^r\.yaml:2:1: \$\.description: a lone UTF-16 surrogate/}, 'a lone surrogate: a record')
  t.match(parseLocated(lone).errors, [{line: 2, column: 1, message: /lone UTF-16 surrogate/}], 'a scenario or a contract')
  t.match(checkPurpose(lone).problems, [{rule: 'purpose/yaml', line: 2, message: /^invalid YAML: \$\.description: a lone UTF-16 surrogate/}], 'PURPOSE.yaml')
  t.match(readFrontmatter(['---', ...lone.trim().split('\n'), '---']).errors, [{line: 3, message: /lone UTF-16 surrogate/}], 'SKILL.md frontmatter')
  t.match(checkPurpose('skill: x\nrun: !!js/function "f"\n').problems, [{rule: 'purpose/yaml', line: 2, message: /exp reads plain YAML/}])
})
