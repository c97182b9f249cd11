import t from 'tap'
import {splitCommandLine} from '../../../src/agents/command/argv.js'

t.test('splits on whitespace like a shell', async t => {
  t.same(splitCommandLine('node  agent.mjs\t--fast'), ['node', 'agent.mjs', '--fast'])
  t.same(splitCommandLine('   '), [])
})

t.test('keeps quoted words whole and literal', async t => {
  t.same(splitCommandLine(`python3 'my agent.py' "a \\"b\\" c" '$HOME'`), ['python3', 'my agent.py', 'a "b" c', '$HOME'])
  t.same(splitCommandLine(`a""b ''`), ['ab', ''])
})

t.test('a backslash escapes outside quotes, and inside double quotes only before " \\ $ `', async t => {
  t.same(splitCommandLine('my\\ agent "x\\ny"'), ['my agent', 'x\\ny'])
})

t.test('an unterminated quote or trailing backslash is refused', async t => {
  t.equal(splitCommandLine(`node 'agent.mjs`), null)
  t.equal(splitCommandLine('node "agent.mjs'), null)
  t.equal(splitCommandLine('node agent\\'), null)
})
