#!/usr/bin/env node
// The `pay` binary (package.json "bin"; bin/run.js runs it too). CommonJS: an ES-module entry would start Node's
// ES-module loader, ~3 ms of every command (it is started only when something below import()s an ES module).
// Three fast paths answer without loading @oclif/core (which alone costs more than a bare
// `node -e 0`): `pay --version` (and -v, `pay version`); `pay [command words] --help` (and bare `pay`, and
// `pay help [command words]`) served from dist/help-cache.json (an index; each text is read by its offset in
// the texts file it names), which scripts/build.mjs renders with oclif's own Help class right after the manifest, so it is never older
// than the build; and a command word that no command, alias or topic starts with, which oclif would only answer
// with the command_not_found hook's message (exit 2). And a direct path for the operation commands (directPath
// below): their command line parsed from the build's table of their own flags and run without oclif. Anything
// that does not match exactly, or any doubt (a theme file, a changed package.json, OCLIF_COLUMNS, DEBUG,
// PAY_NO_FAST_PATH=1), falls through to oclif. test/e2e/fast-path.test.ts and direct-path.test.ts prove they print byte for byte
// what oclif prints.
// Node's modules as CommonJS (process.getBuiltinModule): no ES-module face of them is built.
const {closeSync, existsSync, fstatSync, openSync, readFileSync, readSync, statSync, writeSync} = process.getBuiltinModule('node:fs')
const {arch, homedir, platform, release} = process.getBuiltinModule('node:os')
const {join} = process.getBuiltinModule('node:path')

const root = join(__dirname, '..')
/** Help is rendered at this width everywhere (TTY or pipe), by oclif too, so the cache always matches. */
const HELP_COLUMNS = 80

let pjsonRead
/** package.json, read once for both paths below (throws as JSON.parse and readFileSync do). */
function packageJson() {
  pjsonRead ??= JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  return pjsonRead
}

function fastPath(argv) {
  const env = process.env
  if (env.PAY_NO_FAST_PATH || env.OCLIF_COLUMNS || env.DEBUG) return false
  let pjson
  try {
    pjson = packageJson()
  } catch {
    return false
  }
  // The argv shapes served, with oclif's rules: a version flag first, or help flags last (or nothing at all).
  const versionFlags = ['--version', ...(pjson.oclif?.additionalVersionFlags ?? [])]
  const helpFlags = ['--help', ...(pjson.oclif?.additionalHelpFlags ?? [])]
  const version = versionFlags.includes(argv[0])
  const help = argv.length === 0 || helpFlags.includes(argv.at(-1))
  // an unknown first word: no command file or topic directory by that name (one stat; the cache confirms below)
  const unknown = !version && !help && /^[^-:=]/.test(argv[0]) && !argv.some((a) => helpFlags.includes(a) || versionFlags.includes(a))
  if (!version && !help && !(unknown && !existsSync(join(root, 'dist', 'commands', argv[0])) && !existsSync(join(root, 'dist', 'commands', `${argv[0]}.js`)))) return false
  const os = platform()
  if (os !== 'linux' && os !== 'darwin') return false // oclif special-cases win32 and WSL; let it decide there
  if (os === 'linux' && mayBeWsl()) return false
  const userAgent = `${pjson.name}/${pjson.version} ${os}-${arch() === 'ia32' ? 'x86' : arch()} node-${process.version}`

  // oclif's version answer is its user agent, from package.json alone: no help cache needed
  if (version) {
    writeAll(1, `${userAgent}\n`)
    return true
  }

  let cache
  try {
    cache = JSON.parse(readFileSync(join(root, 'dist', 'help-cache.json'), 'utf8'))
  } catch {
    return false
  }
  // The cache describes this package.json's oclif settings and this manifest, or it is not used.
  if (cache.format !== 2 || cache.columns !== HELP_COLUMNS || JSON.stringify(pjson.oclif) !== cache.oclif) return false
  try {
    if (statSync(join(root, 'oclif.manifest.json')).size !== cache.manifestSize) return false
  } catch {
    return false
  }

  let entry
  let id
  if (help) {
    const subject = argv.slice(0, -1).join(' ')
    if (argv.slice(0, -1).some((a) => a.startsWith('-') || a.includes(':'))) return false
    entry = Object.hasOwn(cache.subjects, subject) ? cache.subjects[subject] : undefined
    if (entry === undefined) return false
  } else {
    // oclif's id for it: the words up to the first flag or key=value, joined with ':' (help/util.js)
    if (Object.keys(cache.subjects).some((subject) => subject.split(' ')[0] === argv[0])) return false
    const words = argv.findIndex((a) => a.startsWith('-') || a.includes('='))
    id = (words === -1 ? argv : argv.slice(0, words)).join(':')
    if (`Error: command ${id} not found`.length > HELP_COLUMNS - 6) return false // oclif would wrap it
  }
  // A user theme file (in oclif's config dir) changes help colours: let oclif read it.
  const configDir = env.PAY_CONFIG_DIR || join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config'), cache.dirname)
  if (existsSync(join(configDir, 'theme.json'))) return false
  // Colour on or off exactly as oclif decides it: with the same supports-color and ansis modules. Except in the
  // commonest case, output into a pipe or a file: without FORCE_COLOR or a --color… flag, supports-color says no
  // colour for a stdout that is not a terminal (not a character device), and oclif's answer is plain; decided
  // here without loading it (it loads node:tty: ~5 ms).
  let color = false
  let ansis
  if (!(cache.supportsColorMajor === 8 && plainPipe(env))) {
    try {
      // node:module only here: loading it costs every command ~0.7M instructions
      const require = process.getBuiltinModule('node:module').createRequire(join(root, 'package.json'))
      const supports = require(join(root, cache.supportsColor))
      ansis = require(join(root, cache.ansis))
      color = Boolean(supports.stdout) && Boolean(supports.stderr) && ansis.isSupported()
    } catch {
      return false
    }
  }
  if (entry) {
    let text
    try {
      text = readText(join(root, 'dist', cache.textFile), color ? entry[2] : entry[0], color ? entry[3] : entry[1])
    } catch {
      return false
    }
    writeAll(1, text.split(cache.userAgentMark).join(userAgent))
    return true
  }
  // the message of the command_not_found hook (dist/hooks/command-not-found.js), which oclif would run
  return {unknownId: id, commandIds: cache.commandIds}
}

/** `length` bytes of `file` from `offset`, as UTF-8 (throws if the file is shorter). */
function readText(file, offset, length) {
  const fd = openSync(file, 'r')
  try {
    const buf = Buffer.allocUnsafe(length)
    for (let done = 0; done < length; ) {
      const n = readSync(fd, buf, done, length - done, offset + done)
      if (n === 0) throw new Error(`${file} is shorter than its index says`)
      done += n
    }
    return buf.toString('utf8')
  } finally {
    closeSync(fd)
  }
}

/**
 * A fast path's answer, written to fd 1 or 2 directly: building process.stdout or process.stderr for a pipe loads
 * Node's net and stream modules (~15M instructions, about a fifth of `node -e 0`) for one write. The same bytes;
 * whatever a plain write cannot finish (a non-blocking pipe that is full: EAGAIN; a closed one: EPIPE) goes to the
 * stream as before, which queues it or reports it as it always did.
 */
function writeAll(fd, text) {
  const buf = Buffer.from(text, 'utf8')
  let done = 0
  try {
    while (done < buf.length) done += writeSync(fd, buf, done, buf.length - done)
  } catch {
    // left to the stream below
  }
  if (done < buf.length) (fd === 1 ? process.stdout : process.stderr).write(buf.subarray(done))
}

/** stdout is no terminal and nothing forces colour: supports-color 8 answers no colour for it. */
function plainPipe(env) {
  if ('FORCE_COLOR' in env || process.argv.some((a) => a.startsWith('--color'))) return false
  try {
    return !fstatSync(1).isCharacterDevice()
  } catch {
    return false
  }
}

/** oclif names the platform `wsl` under WSL; any hint of it sends us to oclif. */
function mayBeWsl() {
  if (release().toLowerCase().includes('microsoft')) return true
  try {
    if (readFileSync('/proc/version', 'utf8').toLowerCase().includes('microsoft')) return true
  } catch {
    // no /proc: not WSL
  }
  return existsSync('/proc/sys/fs/binfmt_misc/WSLInterop') || existsSync('/run/WSL')
}

/**
 * The direct path: an operation command (balance, collections create, …) parsed by src/cli/direct-argv.ts from
 * the flags the build read off the commands themselves (dist/direct-run.json), then run by the runtime's
 * runOperationCommand, which oclif's command calls too. Anything it does not reproduce exactly goes to oclif.
 */
async function directPath(argv) {
  const env = process.env
  if (env.PAY_NO_FAST_PATH || env.OCLIF_COLUMNS || env.DEBUG || argv.length === 0 || argv[0].startsWith('-')) return false
  let table
  let pjson
  try {
    table = JSON.parse(readFileSync(join(root, 'dist', 'direct-run.json'), 'utf8'))
    pjson = packageJson()
    // the table describes this package.json's oclif settings and this manifest, or it is not used
    if (table.format !== 3 || table.oclif !== JSON.stringify(pjson.oclif) || statSync(join(root, 'oclif.manifest.json')).size !== table.manifestSize) return false
  } catch {
    return false
  }
  // the parser as CommonJS (scripts/bundle.mjs), or as tsc wrote it in a build without bundles
  const parser = join(root, 'dist', 'cli', 'direct-argv.cjs')
  const {planDirect} = existsSync(parser) ? require(parser) : await import('../dist/cli/direct-argv.js')
  const plan = planDirect(argv, table, env)
  if (!plan) return false
  // the runtime bundle through its loader, not its ES-module face
  const bundle = join(root, 'dist', 'runtime.cjs')
  const rt = existsSync(bundle) ? require('../dist/vendor/cached-require.cjs').cachedRequire(bundle) : await import('../dist/runtime.js')
  // as oclif's command module does: a closed stdout (`pay … | head`) is not an error
  process.stdout.on('error', (err) => {
    if (err?.code !== 'EPIPE') throw err
  })
  const code = await rt.runOperationCommand(rt.operations[plan.op], plan.flags, plan.args, {id: plan.id, userAgent: rt.userAgentOf(pjson.version)})
  // undefined: the output flags have a problem, which oclif's command reports
  if (code === undefined) return false
  process.exitCode = code
  // Done (the client closed), and all written: exit now rather than after the event loop's last turns, closing
  // handles, and V8's idle-time tasks (a young-generation GC), ~1 ms. Output still queued (a slow pipe) is
  // drained by the normal exit.
  if (!process.stdout.writableLength && !process.stderr.writableLength) process.exit(code)
  return true
}

/**
 * `pay help [words]` and `pay version` print what `pay [words] --help` and `pay --version` print (the help and
 * version commands, src/commands/, call the same oclif code): the fast path serves them as those. Anything with a
 * flag stays as typed (for the help command's own --help, or oclif's errors).
 */
function servedAs(argv) {
  if (argv[0] === 'help' && argv.slice(1).every((a) => !a.startsWith('-'))) return [...argv.slice(1), '--help']
  if (argv[0] === 'version' && argv.length === 1) return ['--version']
  return argv
}

async function main() {
  const argv = process.argv.slice(2)
  const fast = fastPath(servedAs(argv))
  if (typeof fast === 'object') {
    // as CommonJS (scripts/bundle.mjs), or as tsc wrote it in a build without bundles
    const hook = join(root, 'dist', 'hooks', 'command-not-found.cjs')
    const {unknownCommandText} = existsSync(hook) ? require(hook) : await import('../dist/hooks/command-not-found.js')
    const text = unknownCommandText(fast.commandIds, fast.unknownId, argv)
    if (text.stdout) writeAll(1, text.stdout)
    writeAll(2, `${text.stderr}\n`)
    process.exitCode = 2
  } else if (!fast && !(await directPath(argv))) {
    // (no V8 flag is set at start-up: see src/client/undici.ts)
    if (!process.env.OCLIF_COLUMNS) globalThis.oclif = {...globalThis.oclif, columns: HELP_COLUMNS}
    // This binary runs the build (dist/); bin/dev.js runs the sources. Left to itself, oclif transpiles src/ with
    // tsx whenever NODE_ENV is test or development (vitest sets test), which would load the sources and a second
    // copy of @oclif/core next to the bundle.
    globalThis.oclif = {...globalThis.oclif, enableAutoTranspile: false}
    // the build's single-file @oclif/core (scripts/bundle.mjs), which dist/ imports too; the package otherwise
    const bundled = join(root, 'dist', 'vendor', 'oclif.js')
    const {execute} = existsSync(bundled) ? await import('../dist/vendor/oclif.js') : await import('@oclif/core')
    await execute({dir: __filename})
  }
}

// a failure here is a bug: Node reports it and exits 1
main()
