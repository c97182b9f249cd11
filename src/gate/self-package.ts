import {execFile} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {PackError} from '../errors/index.js'
import {PACKAGE_ROOT} from '../package-root.js'

/**
 * The exp that judges a pull request, committed on the base branch: `exp ci init` packs the
 * package this process runs from (as `npm pack` would publish it) into the repository, and the
 * workflow installs the base branch's copy of it (`git show origin/BASE:…`), never the pull
 * request's. A pull request that replaces the file does not choose the exp that judges it,
 * and the gate works without exp being on a registry. This module is the one seam to npm.
 */

/** Where the packed exp goes in the repository, by version. */
export function vendoredPath(version: string): string {
  return `.github/exp/experience-compiler-${version}.tgz`
}

/** Packed copies of exp this folder holds (older versions a newer `exp ci init --force` replaces). */
export function vendoredCopies(workDir: string): string[] {
  const dir = path.join(workDir, '.github', 'exp')
  try {
    // (a version's name only, a regular file only: a folder or someone's own .tgz there is not exp's)
    return fs.readdirSync(dir, {withFileTypes: true}).filter(f => f.isFile() && /^experience-compiler-\d+\.\d+\.\d+[0-9A-Za-z.+-]*\.tgz$/.test(f.name)).map(f => `.github/exp/${f.name}`)
  } catch {
    return []
  }
}

function npm(args: string[], cwd: string): Promise<string> {
  // (npm's own variables, set when exp runs under an npm script, are not passed on: a
  // dry_run or a prefix of the caller's must not change this pack)
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_')))
  return new Promise((resolve, reject) => {
    execFile('npm', args, {cwd, env, maxBuffer: 64 * 1024 * 1024}, (err, stdout, stderr) => {
      if (!err) return resolve(stdout)
      const missing = (err as NodeJS.ErrnoException).code === 'ENOENT'
      reject(new PackError(missing ? 'npm is not on PATH: exp packs itself with it for the workflow to install' : `npm ${args[0]} of ${PACKAGE_ROOT} failed: ${stderr.trim().split('\n').slice(-3).join(' ')}`, 'install npm (it comes with Node.js), or pass --install SPEC (a package@version, a tarball URL, or github:OWNER/REPO#COMMIT)'))
    })
  })
}

/**
 * Pack the package this process runs from into `dest`: one `npm pack` of its folder when it
 * is an installed copy (a manifest with no `prepare`, as exp's tarball has: it packs to the
 * bytes it was installed from), else (a checkout, or an install from git) its files as
 * `npm pack` lists them (package.json's `files`), copied into a folder of their own with a
 * manifest that has no scripts building from sources (none are in the package). The package
 * folder itself is never written (the pack goes to a temporary folder, no script is run).
 * npm writes every entry with one fixed time, so the same exp packs to the same bytes.
 */
export async function packSelf(dest: string): Promise<{bytes: number}> {
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'exp-self-pack-'))
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {scripts?: Record<string, string>}
    const from = pkg.scripts?.prepare === undefined ? PACKAGE_ROOT : await staged(stage)
    const packed = JSON.parse(await npm(['pack', '--json', '--ignore-scripts', '--pack-destination', stage], from)) as {filename: string}[]
    const file = path.join(stage, packed[0]!.filename)
    const tmp = `${dest}.${process.pid}.tmp`
    fs.mkdirSync(path.dirname(dest), {recursive: true})
    fs.copyFileSync(file, tmp)
    fs.renameSync(tmp, dest)
    return {bytes: fs.statSync(dest).size}
  } finally {
    fs.rmSync(stage, {recursive: true, force: true})
  }
}

/** The package's files copied into `stage`/package, its manifest without the scripts that build (packSelf); the folder. */
async function staged(stage: string): Promise<string> {
  const listed = JSON.parse(await npm(['pack', '--dry-run', '--json', '--ignore-scripts'], PACKAGE_ROOT)) as {files: {path: string}[]}[]
  const pkgDir = path.join(stage, 'package')
  for (const {path: rel} of listed[0]?.files ?? []) {
    const to = path.join(pkgDir, rel)
    if (!to.startsWith(pkgDir + path.sep)) continue
    fs.mkdirSync(path.dirname(to), {recursive: true})
    fs.copyFileSync(path.join(PACKAGE_ROOT, rel), to)
  }
  const manifest = path.join(pkgDir, 'package.json')
  const pkg = JSON.parse(fs.readFileSync(manifest, 'utf8')) as {scripts?: Record<string, string>}
  for (const s of ['prepare', 'prepack', 'postpack']) delete pkg.scripts?.[s]
  fs.writeFileSync(manifest, `${JSON.stringify(pkg, null, 2)}\n`)
  return pkgDir
}
