import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {configValue, parseConfigList, parseSize, readConfigFiles} from '../../src/git/config.js'
import {tempDir} from '../helpers/repo.js'

// the reader used where no git binary answers: the files git reads, in git's order
t.test('without git, the files are read as git reads them: GIT_CONFIG_GLOBAL in place of the usual ones, includes, the repository last', async t => {
  const home = tempDir(t)
  const repo = tempDir(t)
  fs.writeFileSync(path.join(home, '.gitconfig'), '[user]\n\tname = Not Used\n')
  fs.writeFileSync(path.join(home, 'g'), '[include]\n\tpath = sub/inc\n[exp]\n\tlane = global\n[remote "origin"]\n\turl = a\n')
  fs.mkdirSync(path.join(home, 'sub'))
  fs.writeFileSync(path.join(home, 'sub', 'inc'), '[user]\n\tname = Included\n[include]\n\tpath = ../g\n')
  fs.writeFileSync(path.join(repo, 'config'), '[exp]\n\tlane = local\n')
  const saved = {...process.env}
  t.teardown(() => {
    process.env = saved
  })
  Object.assign(process.env, {HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), GIT_CONFIG_GLOBAL: path.join(home, 'g'), GIT_CONFIG_NOSYSTEM: '1'})
  const cfg = readConfigFiles(repo)
  t.equal(configValue(cfg, 'user.name'), 'Included', 'an include relative to its file (a loop of includes stops)')
  t.equal(configValue(cfg, 'exp.lane'), 'local', "the repository's own config last")
  t.equal(configValue(cfg, 'remote.origin.url'), 'a')
  delete process.env.GIT_CONFIG_GLOBAL
  t.equal(configValue(readConfigFiles(tempDir(t)), 'user.name'), 'Not Used', '~/.gitconfig without GIT_CONFIG_GLOBAL')
})

t.test("git config --list -z is taken apart by entry: a value with newlines, a key without one, the last value wins", async t => {
  const cfg = parseConfigList(Buffer.from('user.name\nA\0core.bare\0user.name\nB\0alias.x\n!echo a\nb\0remote.Origin.url\nu\0', 'utf8'))
  t.equal(configValue(cfg, 'user.name'), 'B')
  t.equal(configValue(cfg, 'core.bare'), 'true')
  t.equal(configValue(cfg, 'alias.x'), '!echo a\nb')
  t.equal(configValue(cfg, 'remote.Origin.url'), 'u', 'a subsection keeps its case')
})

t.test('a size as git writes it, and what is not one, each named with its key', async t => {
  t.equal(parseSize('1048576', 'exp.maxRecordBytes'), 1048576)
  t.equal(parseSize(' 512K ', 'exp.maxRecordBytes'), 512 * 1024)
  t.equal(parseSize('2g', 'exp.maxRecordBytes'), 2 * 1024 ** 3)
  t.throws(() => parseSize('lots', 'exp.maxRecordBytes'), /git config exp\.maxRecordBytes is "lots", not a size/)
  t.throws(() => parseSize('-1', 'exp.maxRecordBytes'), /not a size/)
  t.throws(() => parseSize('0', 'exp.maxRecordBytes'), /"0": a size is at least 1 byte/)
  t.throws(() => parseSize('99999999999999999999', 'exp.maxRecordBytes'), /"99999999999999999999": more bytes than exp can count/)
  t.throws(() => parseSize('9999999999999g', 'exp.maxRecordBytes'), /more bytes than exp can count/)
})
