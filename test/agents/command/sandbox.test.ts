import t from 'tap'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {spawnSync} from 'node:child_process'
import {detectIsolation, evaluatorSandbox} from '../../../src/agents/command/sandbox.js'
import {tempDir} from '../../helpers/repo.js'
import {GitRecordStore} from '../../../src/store/index.js'
import {keyFileHidden} from '../../../src/cli/run-context.js'

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

// Found by an attack sweep: as root (mount namespaces without a user namespace) the program
// is uid 0 without capabilities, and sysctl files check only permissions. It wrote
// kernel.core_pattern = |script and crashed a child: the kernel ran the script as root outside
// every namespace (it read the key, wrote lanes). /dev, the host's, was a drop box.
t.test("the host's kernel settings, /sys and /dev cannot be written from inside; /dev/null and /dev/shm still work", {skip: !ISOLATED && 'no mount namespaces or bwrap on this machine'}, async t => {
  const root = tempDir(t)
  const checkout = path.join(root, 'repo', '.git', 'exp', 'wt')
  fs.mkdirSync(checkout, {recursive: true})
  const probes = ['/proc/sys/kernel/core_pattern', '/proc/sys/kernel/hostname', '/proc/sysrq-trigger', '/dev/.exp-sandbox-probe', '/sys/kernel/uevent_helper']
  // (each opened for appending and nothing written: were the sandbox to let it, the host's
  // settings would still be as they were)
  const script = `for f in ${probes.join(' ')} /dev/shm/ok; do if ( : >> "$f" ) 2>/dev/null; then echo "wrote $f"; else echo "refused $f"; fi; done; echo x > /dev/null && echo "/dev/null ok"`
  const box = await evaluatorSandbox('sh', ['-c', script], {checkout, hide: [path.join(root, 'repo'), path.join(root, 'repo', '.git')], env: {PATH: process.env.PATH}})
  t.teardown(() => box.cleanup())
  const before = fs.readFileSync('/proc/sys/kernel/core_pattern', 'utf8')
  const r = spawnSync(box.program, box.args, {cwd: checkout, env: box.env, encoding: 'utf8'})
  t.equal(r.status, 0, r.stderr)
  for (const p of probes) t.match(r.stdout, `refused ${p}\n`, p)
  t.match(r.stdout, 'wrote /dev/shm/ok\n')
  t.match(r.stdout, '/dev/null ok\n')
  t.equal(fs.readFileSync('/proc/sys/kernel/core_pattern', 'utf8'), before)
  t.notOk(fs.existsSync('/dev/.exp-sandbox-probe'))
  fs.rmSync('/dev/.exp-sandbox-probe', {force: true})
})

t.test('the key exp signs evidence with is hidden like the held-out key file', {skip: !ISOLATED && 'no mount namespaces or bwrap on this machine'}, async t => {
  const root = tempDir(t)
  const repo = path.join(root, 'repo')
  fs.mkdirSync(repo)
  spawnSync('git', ['init', '-q', repo])
  // (a key outside the repository and the scratch folders, as ~/.ssh/id_ed25519 is)
  const keys = fs.mkdtempSync(path.join(os.homedir(), '.exp-test-keys-'))
  t.teardown(() => fs.rmSync(keys, {recursive: true, force: true}))
  const key = path.join(keys, 'id_exp')
  fs.writeFileSync(key, '-----BEGIN OPENSSH PRIVATE KEY-----\nnot a real key\n-----END OPENSSH PRIVATE KEY-----\n', {mode: 0o600})
  spawnSync('git', ['-C', repo, 'config', 'exp.signingKey', key])
  const store = await GitRecordStore.open(repo)
  t.teardown(() => store.close())
  const hidden = keyFileHidden(store)
  t.same(hidden, [key])
  const checkout = path.join(repo, '.git', 'exp', 'wt')
  fs.mkdirSync(checkout, {recursive: true})
  const box = await evaluatorSandbox('sh', ['-c', `cat ${key}; echo "[end]"`], {checkout, hide: [repo, path.join(repo, '.git'), ...hidden], env: {PATH: process.env.PATH}})
  t.teardown(() => box.cleanup())
  const r = spawnSync(box.program, box.args, {cwd: checkout, env: box.env, encoding: 'utf8'})
  t.equal(r.status, 0, r.stderr)
  t.equal(r.stdout, '[end]\n', 'the key file reads empty inside')
})

// The sandbox makes every mount read-only with one `mount --all` before it makes its own ones
// (each then writable or not as it is made), and one mount at a time only what that left: the
// mount table the program sees says which are writable, under either kind of namespace.
for (const isolation of ['namespace', 'userns'] as const) {
  t.test(`${isolation}: no mount the program can reach is writable but its folders, the empty hidden ones, /dev/shm and /proc`, {skip: !(await runsIn(isolation)) && `no ${isolation} sandbox on this machine`}, async t => {
    const root = tempDir(t)
    const repo = path.join(root, 'repo')
    const checkout = path.join(repo, '.git', 'exp', 'wt')
    fs.mkdirSync(checkout, {recursive: true})
    const box = await evaluatorSandbox('cat', ['/proc/self/mountinfo'], {checkout, hide: [repo, path.join(repo, '.git')], env: {PATH: process.env.PATH}, isolation})
    t.teardown(() => box.cleanup())
    const r = spawnSync(box.program, box.args, {cwd: checkout, env: box.env, encoding: 'utf8'})
    t.equal(r.status, 0, r.stderr)
    const mounts = r.stdout.trim().split('\n').map(line => {
      const f = line.split(' ')
      const dash = f.indexOf('-', 6)
      return {id: f[0], parent: f[1], at: f[4]!.replace(/\\(\d{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8))), ro: f[5]!.split(',').includes('ro'), source: f[dash + 2]}
    })
    // (one mounted over another at the same path hides it: only the top one is reached)
    const covered = new Set(mounts.map(m => `${m.at}\0${m.parent}`))
    const kept = [checkout, path.dirname(box.env.HOME!)]
    const writable = mounts.filter(m => !m.ro && !covered.has(`${m.at}\0${m.id}`))
    const allowed = (m: (typeof mounts)[number]) => kept.includes(m.at) || ['exp-stage', 'exp-hidden'].includes(m.source!) || m.at === '/proc' || (isolation === 'userns' && /^\/(sys|dev)(\/|$)/.test(m.at))
    t.same(writable.filter(m => !allowed(m)).map(m => m.at), [], 'every other mount the program reaches is read-only')
    t.same(kept.filter(k => !writable.some(m => m.at === k)), [], 'its folders are writable')
    t.ok(mounts.some(m => m.at === '/' && m.ro), '/ is read-only')
    t.ok(mounts.some(m => m.at === '/proc/sys' && m.ro), "the host's kernel settings are read-only")
  })
}

async function runsIn(isolation: 'namespace' | 'userns'): Promise<boolean> {
  const user = isolation === 'userns' ? ['--user', '--map-root-user'] : []
  return spawnSync('unshare', [...user, '--mount', '--pid', '--fork', '--mount-proc', '--propagation', 'private', 'true']).status === 0
}
