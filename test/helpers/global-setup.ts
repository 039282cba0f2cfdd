/**
 * Tests run the built CLI. When a source file is newer than the last build (an edit since `npm ci` or
 * `npm run build`), build once before any test, so `npm test` never tests a stale dist/.
 */
import {execFileSync} from 'node:child_process'
import {readdirSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {ROOT} from './cli.js'

function newest(path: string): number {
  const st = statSync(path)
  if (!st.isDirectory()) return st.mtimeMs
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))))
}

export default function setup(): void {
  let built = 0
  try {
    built = statSync(join(ROOT, 'dist', 'help-cache.json')).mtimeMs
  } catch {
    // never built
  }
  const sources = Math.max(newest(join(ROOT, 'src')), newest(join(ROOT, 'scripts')), newest(join(ROOT, 'package.json')), newest(join(ROOT, 'bin')))
  if (sources > built) {
    process.stderr.write('dist/ is older than the sources: npm run build\n')
    execFileSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], {cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit']})
  }
}
