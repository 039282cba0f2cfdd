// Build: TypeScript and the start-up bundles (scripts/bundle.mjs) into a fresh directory that is then swapped in
// as dist/ by renames, so that a test or a `pay` run going on meanwhile (several builds may run at once in one
// work tree) never sees a half-written or missing dist/; then the oclif manifest (commands are found from it, not
// by scanning at start-up); then dist/help-cache.json (bin/run.cjs serves `--help` from it without loading oclif;
// scripts/help-cache.mjs) and dist/direct-run.json; then the bundles' V8 code caches (scripts/code-cache.mjs).
// PAY_NO_BUNDLE=1 builds plain tsc output (no bundles, no code caches).
import {execFileSync} from 'node:child_process'
import {existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const bin = (name) => join(root, 'node_modules', '.bin', name)
const run = (cmd, args) => execFileSync(cmd, args, {cwd: root, stdio: 'inherit'})
const dist = join(root, 'dist')
// under tmp/ (ignored by git and eslint), on the same file system so that renames are atomic
const fresh = join(root, 'tmp', `dist-build-${process.pid}`)
const old = join(root, 'tmp', `dist-old-${process.pid}`)

mkdirSync(join(root, 'tmp'), {recursive: true})
rmSync(fresh, {recursive: true, force: true})
try {
  run(bin('tsc'), ['-p', 'tsconfig.json', '--outDir', fresh])
  if (!process.env.PAY_NO_BUNDLE) await (await import('./bundle.mjs')).bundle(fresh)
  if (existsSync(dist)) renameSync(dist, old)
  renameSync(fresh, dist)
} finally {
  rmSync(fresh, {recursive: true, force: true})
  rmSync(old, {recursive: true, force: true})
}
// oclif's own update check (plugin-warn-if-update-available) asks the npm registry and prints "update available"
// in every install: the build pins the version it was made with (package-lock.json), so the warning is noise
execFileSync(bin('oclif'), ['manifest'], {cwd: root, stdio: 'inherit', env: {...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: 'true'}})
// oclif writes the commands in the order their modules finished loading, which varies from build to build; the
// committed manifest is kept in id order so that a rebuild does not reorder it (oclif sorts them when it loads).
const manifestFile = join(root, 'oclif.manifest.json')
const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'))
manifest.commands = Object.fromEntries(Object.entries(manifest.commands).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
writeFileSync(manifestFile, JSON.stringify(manifest, null, 2))
run(process.execPath, [join(root, 'scripts', 'help-cache.mjs')])
// then dist/direct-run.json: the flags of the operation commands, which bin/run.cjs runs without oclif
run(process.execPath, [join(root, 'scripts', 'direct-table.mjs')])
// V8 records the file name in the code cache, so it is made where the bundles now live; last, because making it
// runs commands as bin/run.cjs's direct path does, which reads dist/direct-run.json
if (!process.env.PAY_NO_BUNDLE) run(process.execPath, [join(root, 'scripts', 'code-cache.mjs'), dist])
