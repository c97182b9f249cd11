import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {spawnSync} from 'node:child_process'
import {detectIsolation, evaluatorSandbox} from '../../../src/agents/command/sandbox.js'
import {tempDir} from '../../helpers/repo.js'

/**
 * The evaluator's sandbox on its own (src/agents/command/sandbox.ts): what it may write, what
 * it may not, and a checkout reached through a symbolic link (the program re-enters its folder
 * by the path it was given: the kept mount is there, not at the link's target).
 */
const ISOLATED = (await detectIsolation()) !== 'none'

t.test('a sandboxed program writes its folder, HOME and TMPDIR, nothing else, also through a linked path', {skip: !ISOLATED && 'no mount namespaces or bwrap on this machine'}, async t => {
  const root = tempDir(t)
  const repo = path.join(root, 'repo')
  fs.mkdirSync(path.join(repo, '.git', 'exp', 'wt'), {recursive: true})
  fs.symlinkSync(repo, path.join(root, 'link'))
  for (const base of [repo, path.join(root, 'link')]) {
    const checkout = path.join(base, '.git', 'exp', 'wt')
    const script = 'for f in here.txt "$HOME/h.txt" "$TMPDIR/t.txt" /etc/exp-sandbox-probe; do if ( : > "$f" ) 2>/dev/null; then echo "wrote $f"; else echo "refused $f"; fi; done'
    const box = await evaluatorSandbox('sh', ['-c', script], {checkout, hide: [base, path.join(base, '.git')], env: {PATH: process.env.PATH}})
    t.teardown(() => box.cleanup())
    const r = spawnSync(box.program, box.args, {cwd: checkout, env: box.env, encoding: 'utf8'})
    t.equal(r.status, 0, r.stderr)
    t.match(r.stdout, /^wrote here\.txt\nwrote .*\/h\.txt\nwrote .*\/t\.txt\nrefused \/etc\/exp-sandbox-probe\n$/, base)
    t.ok(fs.existsSync(path.join(repo, '.git', 'exp', 'wt', 'here.txt')), 'the file is in the checkout')
    t.notOk(fs.existsSync('/etc/exp-sandbox-probe'))
  }
})
