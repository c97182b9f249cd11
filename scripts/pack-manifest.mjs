#!/usr/bin/env node
// npm pack's prepack and postpack: the package.json packed has no `prepare` script.
//
// `prepare` builds dist/ for an install from git (github:OWNER/REPO#TAG: npm runs it after
// cloning). A tarball or the registry already holds dist/, but npm 11 lists a packed
// `prepare` as an install script "not yet covered by allowScripts" on every install of the
// tarball, and following its advice (--allow-scripts) would run a build without the
// development dependencies, which fails. So: prepack builds (unless EXP_PACK_PREBUILT=1, for a
// build already made), then writes package.json without `prepare`, keeping the original
// beside it; postpack puts the original back. Both writes replace the file by a rename, so a
// command reading package.json meanwhile sees one whole version or the other.
//
// usage: node scripts/pack-manifest.mjs prepack|postpack
import {execFileSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const manifest = path.join(root, 'package.json')
const kept = path.join(root, 'package.json.prepack')

function replace(file, text) {
  const tmp = `${file}.${process.pid}.tmp`
  fs.writeFileSync(tmp, text)
  fs.renameSync(tmp, file)
}

const step = process.argv[2]
if (step === 'prepack') {
  if (process.env.EXP_PACK_PREBUILT !== '1') execFileSync('npm', ['run', 'build'], {cwd: root, stdio: 'inherit'})
  // (a pack that stopped before its postpack left the original here: it stays the original)
  const text = fs.existsSync(kept) ? fs.readFileSync(kept, 'utf8') : fs.readFileSync(manifest, 'utf8')
  if (!fs.existsSync(kept)) replace(kept, text)
  const pkg = JSON.parse(text)
  delete pkg.scripts.prepare
  replace(manifest, `${JSON.stringify(pkg, null, 2)}\n`)
} else if (step === 'postpack') {
  if (fs.existsSync(kept)) fs.renameSync(kept, manifest)
} else {
  console.error('usage: node scripts/pack-manifest.mjs prepack|postpack')
  process.exit(2)
}
