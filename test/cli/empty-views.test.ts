import t from 'tap'
import {exp} from '../helpers/cli.js'
import {git, tempDir} from '../helpers/repo.js'
import {table} from '../../src/cli/table.js'

/**
 * A view with nothing to show says so (and what to do), instead of printing a header over
 * no rows: what a new user sees first in a fresh repository.
 */
t.test('no rows: an empty string, so that the caller can say what is empty', async t => {
  t.equal(table([], ['A', 'B']), '')
  t.equal(table([]), '')
  t.equal(table([[1, 'x']], ['A', 'B']), 'A  B\n1  x')
})

for (const branch of ['master', 'main']) {
  t.test(`in a fresh repository on ${branch}, the empty views say they are empty`, async t => {
    const dir = tempDir(t)
    await git(dir, 'init', '-q', '-b', branch)
    const cases: [string[], string][] = [
      [['ledger'], '(no records)'],
      [['lanes'], '(no lanes yet: append a record with `exp append`)'],
      [['hypotheses'], '(no hypotheses)'],
      [['attempt', 'list'], '(no attempts)'],
    ]
    for (const [args, said] of cases) {
      const r = await exp(args, {cwd: dir})
      t.equal(r.code, 0, `exp ${args.join(' ')}: ${r.stderr}`)
      t.equal(r.stdout.trim(), said, `exp ${args.join(' ')}`)
    }
    const mine = await exp(['mine'], {cwd: dir})
    t.equal(mine.code, 0, mine.stderr)
    t.match(mine.stdout, /^\(nothing found\)\n0 train trace\(s\) mined/)
    t.notMatch(mine.stdout, /PATTERN/)
  })
}
