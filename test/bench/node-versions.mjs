// `npm run bench`, section "nodes": the start-up table again under every other Node installed by .ci/nodes.mjs
// (Node 22 and 24 after a CI run; `node .ci/nodes.mjs install 22` installs one). Each runs this bench's
// start-up section in its own process (test/bench/run.mjs startup), so it measures that Node against its own
// `node -e 0`. A Node without its own V8 code cache of the build's bundles gets one first (scripts/code-cache.mjs),
// as .ci/run does, so that its start-up is measured as it runs after a build.
import {spawnSync} from 'node:child_process'
import {existsSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {installedNodes} from '../../.ci/nodes.mjs'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

export function startupPerNode() {
  const others = installedNodes().filter((n) => n.major !== Number(process.versions.node.split('.')[0]))
  console.log(`\n== start-up per Node version: ${others.length === 0 ? 'no other Node installed (node .ci/nodes.mjs install 22 | 24)' : others.map((n) => n.major).join(', ')} ==`)
  for (const {major, path} of others) {
    const v8 = spawnSync(path, ['-p', 'process.versions.v8 + "-" + process.arch'], {encoding: 'utf8'}).stdout.trim()
    if (!existsSync(join(ROOT, 'dist', 'runtime.cjs') + `.${v8}.v8cache`)) {
      console.log(`  (Node ${major}: adding its code caches to dist/ first)`)
      spawnSync(path, [join(ROOT, 'scripts', 'code-cache.mjs'), join(ROOT, 'dist')], {stdio: 'inherit'})
    }
    const r = spawnSync(path, [join(ROOT, 'test', 'bench', 'run.mjs'), 'startup'], {stdio: 'inherit', timeout: 600_000})
    if (r.status !== 0) throw new Error(`the start-up bench under Node ${major} failed (exit ${r.status ?? r.signal})`)
  }
}
