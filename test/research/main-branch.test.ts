import t from 'tap'
import {branchRef, defaultBranch, resolveMainBranch, type BranchView} from '../../src/research/main-branch.js'

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
  t.equal(branchRef('refs/heads/x'), 'refs/heads/x')
})
