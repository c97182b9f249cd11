import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp} from '../helpers/cli.js'
import {makeRepo, git} from '../helpers/repo.js'
import {codeSpan, shownPath} from '../../src/gate/scope.js'
import {gateJUnit} from '../../src/gate/junit.js'
import {gateMarkdown} from '../../src/gate/gate.js'

// Found attacking as a pull-request author: a file name is the author's to choose, and the
// gate printed it as it was into its comment (a newline and `## exp gate: PASS` drew a fake
// heading; `@name` pinged; HTML rendered) and into the terminal (escape sequences).
const EVIL = 'notes/x`\n\n## exp gate: PASS\n\n\u001b[2J@maintainer <img src=x> \u202eexe.md `'

t.test('paths are shown as text: quoted with escapes when they are not plain, in a code span whatever backticks they hold', async t => {
  t.equal(shownPath('skills/onboarding/SKILL.md'), 'skills/onboarding/SKILL.md')
  t.equal(shownPath('a b/ü.md'), 'a b/ü.md', 'spaces and letters are plain')
  t.equal(shownPath('a\nb'), '"a\\nb"')
  t.equal(shownPath('a\u001bb'), '"a\\u001bb"')
  t.equal(shownPath('\u202ea'), '"\\u202ea"')
  t.equal(shownPath('a"b'), '"a\\"b"')
  t.equal(codeSpan('a'), '`a`')
  t.equal(codeSpan('a`b'), '``a`b``')
  t.equal(codeSpan('`a``'), '``` `a`` ```')
  const r = {passed: false, certified: false, base: 'a'.repeat(40), head: 'b'.repeat(40), notes: [], skills: [], contracts: [], reasons: [], stale: [EVIL], scope: {ok: false, changed: [EVIL], outside: [EVIL], protected: [EVIL], links: [EVIL]}} as unknown as Parameters<typeof gateMarkdown>[0]
  const md = gateMarkdown(r)
  t.equal(md.split('\n').filter(l => l.startsWith('## ')).length, 1, 'one heading: the gate\'s own')
  // eslint-disable-next-line no-control-regex
  t.notMatch(md, /[\u0000-\u0009\u000b-\u001f\u202e]/)
  t.notMatch(gateJUnit(r), /## exp gate: PASS\n/)
})

t.test('exp gate on a pull request adding a file with a hostile name: one heading, no escape sequence, the path quoted', async t => {
  const repo = await makeRepo(t)
  t.equal((await exp(['init', '--example', 'onboarding'], {cwd: repo})).code, 0)
  await git(repo, 'switch', '-q', '-c', 'evil')
  fs.mkdirSync(path.join(repo, 'notes'))
  fs.writeFileSync(path.join(repo, EVIL), 'hi\n')
  await git(repo, 'add', '-A')
  await git(repo, 'commit', '-qm', 'evil')
  const r = await exp(['gate', '--comment', 'c.md', '--junit', 'j.xml'], {cwd: repo})
  t.not(r.code, 0)
  const comment = fs.readFileSync(path.join(repo, 'c.md'), 'utf8')
  t.same(comment.split('\n').filter(l => l.startsWith('## ')), ['## exp gate: FAIL'])
  t.match(comment, /outside the editable scope: ``"notes\/x`\\n\\n## exp gate: PASS\\n\\n\\u001b\[2J@maintainer <img src=x> \\u202eexe\.md `"``/)
  // eslint-disable-next-line no-control-regex
  for (const [name, text] of [['stdout', r.stdout], ['stderr', r.stderr], ['comment', comment], ['junit', fs.readFileSync(path.join(repo, 'j.xml'), 'utf8')]]) t.notMatch(text, /[\u0000-\u0009\u000b-\u001f\u202e]/, `${name}: no control or bidirectional character`)
})

t.test('the comment of a gate that could not run shows the error in a code block: a name the pull request chose pings no one, links nowhere', async t => {
  const repo = await makeRepo(t)
  t.equal((await exp(['init', '--example', 'onboarding'], {cwd: repo})).code, 0)
  await git(repo, 'switch', '-q', '-c', 'new-skill')
  // a new skill folder is in the editable scope (skills/**): the gate stops on it, naming it
  const dir = path.join(repo, 'skills', '@maintainer [click](https:evil) <img src=x> ```')
  fs.mkdirSync(dir)
  fs.copyFileSync(path.join(repo, 'skills/onboarding/SKILL.md'), path.join(dir, 'SKILL.md'))
  await git(repo, 'add', '-A')
  await git(repo, 'commit', '-qm', 'a new skill')
  const r = await exp(['gate', '--comment', 'c.md'], {cwd: repo})
  t.equal(r.code, 2, r.stderr)
  const comment = fs.readFileSync(path.join(repo, 'c.md'), 'utf8')
  const lines = comment.split('\n')
  t.same(lines.slice(0, 5), ['<!-- exp-gate -->', '## exp gate: ERROR', '', 'The gate could not run:', ''])
  t.equal(lines[5], '````text', 'a fence longer than the backticks the name holds')
  t.match(lines[6], /^error: the head adds skills\/@maintainer \[click\]\(https:evil\) <img src=x> ```\/SKILL\.md: /)
  t.match(lines[7], /^hint: a new skill lands on the main branch/)
  t.equal(lines[8], '````', 'the block is closed after the hint: nothing the name holds is Markdown')
})
