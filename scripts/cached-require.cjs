// Loads a CommonJS bundle of the build (dist/vendor/oclif.cjs, dist/runtime.cjs) with V8's code cache: the
// bytecode V8 compiled for it, saved by the build beside it (scripts/code-cache.mjs), so that a start skips parsing and
// compiling most of it (Node 20 has no module.enableCompileCache). A cache is only good for the V8 that made it,
// so each V8 version has its own file (<file>.<V8 version>-<arch>.v8cache; codeCachePath): a build made with one
// Node and run with another finds no cache and compiles as require() would, rather than reading a foreign one.
// V8 still checks a cache against the source, its version and flags, and ignores one that does not match (the
// file is then compiled as usual, cachedDataRejected), so a stale or damaged cache costs speed, never correctness.
//
// The bundles' dynamic import()s are rewritten by scripts/bundle.mjs to __payImport(), which this passes in:
// Node 20's vm cannot run import() from a script restored from a code cache without an experimental flag.
// CommonJS, so that bin/run.cjs loads it without starting Node's ES-module loader (the ESM faces of the bundles
// import it too). Copied by scripts/bundle.mjs to dist/vendor/cached-require.cjs.
// Node's modules as CommonJS (process.getBuiltinModule): an ES-module import of one builds its ES-module face,
// reading every export, which for node:fs loads its streams and promises (~1.5 ms of every start).
const {readFileSync, renameSync, writeFileSync} = process.getBuiltinModule('node:fs')
const {createRequire} = process.getBuiltinModule('node:module')
const {dirname} = process.getBuiltinModule('node:path')
const {pathToFileURL} = process.getBuiltinModule('node:url')
const vm = process.getBuiltinModule('node:vm')
const {isAscii} = process.getBuiltinModule('node:buffer')

const scripts = new Map()

/** Where the code cache of `file` for this V8 lives. */
function codeCachePath(file) {
  return `${file}.${process.versions.v8}-${process.arch}.v8cache`
}

/** require(file) for a bundle of the build, through its code cache when there is one. */
function cachedRequire(file) {
  // each bundle once per process, whoever asks (bin/run.cjs, the ES-module faces): Node's public module cache
  const done = require.cache[file]
  if (done) return done.exports
  let cachedData
  try {
    cachedData = readFileSync(codeCachePath(file))
  } catch {
    // no cache yet: compiled as usual
  }
  // the bundles are ASCII (esbuild escapes the rest): read as latin1, which for ASCII is the same text, decoded in
  // half the time of utf8 (~0.5 ms for runtime.cjs)
  const bytes = readFileSync(file)
  const text = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8')
  const wrapper = `(function (exports, require, module, __filename, __dirname, __payImport) {${text}\n})`
  const script = new vm.Script(wrapper, {filename: file, cachedData})
  scripts.set(file, script)
  // what a CommonJS module sees of itself (no Module internals needed: the bundle's require is createRequire(file))
  const mod = {id: file, filename: file, exports: {}, loaded: false, children: []}
  require.cache[file] = mod
  // (the file's URL made when first needed: pathToFileURL costs ~0.5 ms the first time)
  const payImport = (specifier) => import(specifier.startsWith('./') || specifier.startsWith('../') ? new URL(specifier, pathToFileURL(file)).href : specifier)
  try {
    script.runInThisContext()(mod.exports, createRequire(file), mod, file, dirname(file), payImport)
  } catch (error) {
    delete require.cache[file]
    throw error
  }
  mod.loaded = true
  return mod.exports
}

/** Saves the code cache of a file loaded by cachedRequire (the build calls this after exercising it). */
function writeCodeCache(file) {
  const script = scripts.get(file)
  if (!script) throw new Error(`${file} was not loaded through cachedRequire`)
  // aside, then renamed: a start going on meanwhile reads the old cache or the new one
  const tmp = `${codeCachePath(file)}.${process.pid}.tmp`
  writeFileSync(tmp, script.createCachedData())
  renameSync(tmp, codeCachePath(file))
}

/** True when V8 refused the saved cache of a file loaded by cachedRequire (other source, V8 or flags). */
function codeCacheRejected(file) {
  return scripts.get(file)?.cachedDataRejected
}

exports.codeCachePath = codeCachePath
exports.cachedRequire = cachedRequire
exports.writeCodeCache = writeCodeCache
exports.codeCacheRejected = codeCacheRejected
