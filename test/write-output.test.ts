import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {writeOutputFile, writeOutputFiles} from '../src/write-output.js'
import {tempDir} from './helpers/repo.js'

// Found by an attack sweep: a folder at a result file's name (out/report.html/) made the rename
// fail with "EISDIR … this is unexpected", after the files before it had been replaced.
t.test('a folder at a result file name: named before the first file is written, never "unexpected"', async t => {
  const dir = tempDir(t)
  fs.writeFileSync(path.join(dir, 'a.md'), 'old\n')
  fs.mkdirSync(path.join(dir, 'b.html'))
  await t.rejects(writeOutputFiles(dir, [['a.md', 'new\n'], ['b.html', 'new\n']]), {code: 'E_INVALID_INPUT', message: /b\.html is a folder, and exp writes a result file at that name; nothing was written/, hint: /move or remove the folder .*b\.html/})
  t.equal(fs.readFileSync(path.join(dir, 'a.md'), 'utf8'), 'old\n', 'a.md, before it, is not replaced')
  await t.rejects(writeOutputFile(path.join(dir, 'b.html'), 'x'), {code: 'E_INVALID_INPUT', message: /b\.html is a folder/})
  t.same(fs.readdirSync(dir).sort(), ['a.md', 'b.html'], 'no temporary file is left')
  // a link at the name is replaced, never written through, even a link to a folder
  fs.symlinkSync(path.join(dir, 'b.html'), path.join(dir, 'c.html'))
  t.same(await writeOutputFiles(dir, [['a.md', 'new\n'], ['c.html', 'c\n']]), [path.join(dir, 'a.md'), path.join(dir, 'c.html')])
  t.ok(fs.lstatSync(path.join(dir, 'c.html')).isFile())
  t.equal(fs.readFileSync(path.join(dir, 'a.md'), 'utf8'), 'new\n')
})

t.test('what the file system refuses is an error naming the file', async t => {
  const dir = tempDir(t)
  fs.writeFileSync(path.join(dir, 'file'), '')
  await t.rejects(writeOutputFile(path.join(dir, 'file', 'x.md'), 'x'), {code: 'E_INVALID_INPUT', message: /^cannot write .*file\/x\.md: a file is in the way of a folder on its path \((ENOTDIR|EEXIST)\)$/})
  if (process.getuid?.() === 0) return // (root writes anywhere)
  const ro = path.join(dir, 'ro')
  fs.mkdirSync(ro, {mode: 0o555})
  t.teardown(() => fs.chmodSync(ro, 0o755))
  await t.rejects(writeOutputFile(path.join(ro, 'x.md'), 'x'), {code: 'E_INVALID_INPUT', message: /^cannot write .*ro\/x\.md: permission denied \(EACCES\)$/, hint: /choose a path exp can write a file at/})
})
