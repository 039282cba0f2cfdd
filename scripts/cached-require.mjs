// Loads a CommonJS bundle of the build (dist/vendor/oclif.cjs, dist/runtime.cjs) with V8's code cache: the
// bytecode V8 compiled for it, saved by the build in <file>.v8cache, so that a start skips parsing and
// compiling most of it (Node 20 has no module.enableCompileCache). V8 checks the cache against the source and
// its own version and flags and ignores it when they differ (the file is then compiled as usual), so a stale or
// foreign cache costs speed, never correctness. Without a cache file it is compiled as require() would.
//
// The bundles' dynamic import()s are rewritten by scripts/bundle.mjs to __payImport(), which this passes in:
// Node 20's vm cannot run import() from a script restored from a code cache without an experimental flag.
// Copied by scripts/bundle.mjs to dist/vendor/cached-require.js.
import {readFileSync, renameSync, writeFileSync} from 'node:fs'
import Module, {createRequire} from 'node:module'
import {dirname} from 'node:path'
import {pathToFileURL} from 'node:url'
import vm from 'node:vm'

const scripts = new Map()

/** require(file) for a bundle of the build, through its code cache when there is one. */
export function cachedRequire(file) {
  const loaded = Module._cache[file]
  if (loaded) return loaded.exports
  let cachedData
  try {
    cachedData = readFileSync(`${file}.v8cache`)
  } catch {
    // no cache yet: compiled as usual
  }
  const wrapper = `(function (exports, require, module, __filename, __dirname, __payImport) {${readFileSync(file, 'utf8')}\n})`
  const script = new vm.Script(wrapper, {filename: file, cachedData})
  scripts.set(file, script)
  const mod = new Module(file, undefined)
  mod.filename = file
  mod.paths = Module._nodeModulePaths(dirname(file))
  Module._cache[file] = mod
  const base = pathToFileURL(file)
  const payImport = (specifier) => import(specifier.startsWith('./') || specifier.startsWith('../') ? new URL(specifier, base).href : specifier)
  try {
    script.runInThisContext()(mod.exports, createRequire(file), mod, file, dirname(file), payImport)
  } catch (error) {
    delete Module._cache[file]
    throw error
  }
  mod.loaded = true
  return mod.exports
}

/** Saves the code cache of a file loaded by cachedRequire (the build calls this after exercising it). */
export function writeCodeCache(file) {
  const script = scripts.get(file)
  if (!script) throw new Error(`${file} was not loaded through cachedRequire`)
  // aside, then renamed: a start going on meanwhile reads the old cache or the new one
  const tmp = `${file}.v8cache.${process.pid}.tmp`
  writeFileSync(tmp, script.createCachedData())
  renameSync(tmp, `${file}.v8cache`)
}

/** True when V8 refused the saved cache of a file loaded by cachedRequire (other source, V8 or flags). */
export function codeCacheRejected(file) {
  return scripts.get(file)?.cachedDataRejected
}
