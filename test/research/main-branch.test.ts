import t from 'tap'
import {assertResearchFile} from '../../src/records/validate.js'
import {branchNameProblem, branchRef, defaultBranch, refNameProblem, resolveMainBranch, type BranchView} from '../../src/research/main-branch.js'

const view = (v: Partial<BranchView>): BranchView => ({branches: [], renames: [], ...v})

t.test('the default branch of a fresh repository is the one HEAD points to, whatever its name', async t => {
  t.equal(defaultBranch(view({head: 'master'})), 'master', 'unborn master (git 2.39 without init.defaultBranch)')
  t.equal(defaultBranch(view({head: 'trunk', branches: ['trunk']})), 'trunk')
  t.equal(defaultBranch(view({head: 'main', branches: ['main', 'exp/proposal/pr-1']})), 'main', 'proposal branches do not count')
})

t.test("origin's HEAD wins; else main, master or trunk over a feature branch that is checked out", async t => {
  t.equal(defaultBranch(view({head: 'feature', branches: ['feature', 'develop'], remoteHead: 'develop'})), 'develop')
  t.equal(defaultBranch(view({head: 'feature', branches: ['feature', 'master']})), 'master')
  t.equal(defaultBranch(view({head: 'feature', branches: ['feature', 'other']})), 'feature')
  t.equal(defaultBranch(view({})), 'main', 'nothing at all: main')
})

t.test('the configured branch is used when it exists, or when the repository has no branch yet', async t => {
  t.same(resolveMainBranch('master', view({branches: ['master', 'main']})), {branch: 'master', via: 'config'})
  t.same(resolveMainBranch('master', view({head: 'master'})), {branch: 'master', via: 'config'})
})

t.test('a renamed main branch is followed, through several renames, and a rename cycle ends', async t => {
  const renames = [{from: 'master', to: 'main'}, {from: 'main', to: 'trunk'}]
  t.same(resolveMainBranch('master', view({branches: ['trunk'], renames})), {branch: 'trunk', via: 'rename', configured: 'master'})
  const cycle = [{from: 'a', to: 'b'}, {from: 'b', to: 'a'}]
  t.same(resolveMainBranch('a', view({branches: ['x'], head: 'x', renames: cycle})), {branch: 'x', via: 'guess', configured: 'a'})
  t.same(resolveMainBranch('master', view({branches: ['main', 'master2'], renames: [{from: 'master', to: 'master2'}, {from: 'master', to: 'main'}]})), {branch: 'main', via: 'rename', configured: 'master'}, 'the latest rename of a name counts')
})

t.test('a configured branch that never existed here falls back to the default branch (older inits wrote main on master)', async t => {
  t.same(resolveMainBranch('main', view({branches: ['master'], head: 'master'})), {branch: 'master', via: 'guess', configured: 'main'})
  t.same(resolveMainBranch(undefined, view({branches: ['master'], head: 'master'})), {branch: 'master', via: 'guess'})
  t.equal(branchRef('master'), 'refs/heads/master')
})

// Found by an attack sweep: a branch named refs/… was taken as that full ref, so a committed
// `main_branch: refs/tags/v1.0` had promotions move the release tag.
t.test('a branch name follows git check-ref-format --branch, and is no full ref name, no HEAD', async t => {
  for (const ok of ['main', 'master', 'team/trunk', 'release-1.0', 'v1@x', 'ünïcode', 'a.b/c_d']) t.equal(branchNameProblem(ok), undefined, ok)
  for (const [bad, why] of [
    ['', /empty/], [' ', /empty/], ['refs/tags/v1.0', /full ref name/], ['refs/heads/main', /full ref name/], ['HEAD', /HEAD/], ['@', /@/],
    ['-x', /'-'/], ['a..b', /'\.\.'/], ['a b', /a space/], ['a\tb', /control character/], ['a\x7fb', /control character/],
    ['a~1', /'~'/], ['a^', /'\^'/], ['a:b', /':'/], ['a?', /'\?'/], ['a*', /'\*'/], ['a[b', /'\['/], ['a\\b', /'\\'/],
    ['a@{1}', /'@\{'/], ['/a', /empty component/], ['a/', /empty component/], ['a//b', /empty component/], ['a.', /ends with '\.'/],
    ['.a', /starts with '\.'/], ['a/.b', /starts with '\.'/], ['a.lock', /\.lock/], ['a.lock/b', /\.lock/],
  ] as const) t.match(branchNameProblem(bad), why, JSON.stringify(bad))
  // the schema's pattern (for editors and other readers of the schema) says the same
  const schemaTakes = (name: string): boolean => {
    try {
      assertResearchFile('config', {version: 1, main_branch: name})
      return true
    } catch {
      return false
    }
  }
  for (const name of ['main', 'team/trunk', 'v1@x', 'ünïcode', '', ' ', 'refs/heads/main', 'HEAD', '@', '-x', 'a..b', 'a b', 'a\tb', 'a~1', 'a^', 'a:b', 'a?', 'a*', 'a[b', 'a\\b', 'a@{1}', '/a', 'a/', 'a//b', 'a.', '.a', 'a/.b', 'a.lock', 'a.lock/b', 'a/b.lock/c']) {
    t.equal(schemaTakes(name), branchNameProblem(name) === undefined, `the schema and branchNameProblem agree on ${JSON.stringify(name)}`)
  }
  t.equal(refNameProblem('refs/exp/matrix/x/y/main'), undefined, 'a full ref a view may read')
  t.match(refNameProblem('refs/heads/a..b'), /'\.\.'/)
  t.match(refNameProblem('refs/'), /empty component/)
  t.throws(() => branchRef('refs/tags/v1.0'), {code: 'E_INVALID_NAME'}, 'refused where it would have been taken as is')
  t.throws(() => branchRef('HEAD'), {code: 'E_INVALID_NAME'})
})

t.test('names that are no branch names are never guessed as main (a branch view read from a damaged or odd repository)', async t => {
  t.equal(defaultBranch(view({head: 'refs/tags/v1', branches: ['refs/tags/v1']})), 'main')
  t.equal(defaultBranch(view({remoteHead: 'refs/tags/v1', branches: ['refs/tags/v1', 'trunk'], head: 'trunk'})), 'trunk')
  t.same(resolveMainBranch('main', view({branches: ['trunk', 'HEAD'], head: 'trunk', renames: [{from: 'main', to: 'HEAD'}]})), {branch: 'trunk', via: 'guess', configured: 'main'})
})
