// Writes dist/direct-run.json: for each operation command (src/cli/operation-command.ts), its flags and arguments
// as oclif's own definitions say them (the command classes loaded through oclif's Config, as bin/run.cjs would), for
// bin/run.cjs's direct path (src/cli/direct-argv.ts), which runs those commands without loading @oclif/core.
// A flag is described only when it is of a kind the direct path reproduces exactly (oclif's boolean, string and
// integer flags, with char, multiple, options, default, env, allowNo, exclusive, dependsOn and the integer bounds);
// a command with any other flag attribute, argument attribute, hook or plugin is left out, and oclif runs it. Run
// by scripts/build.mjs after the manifest.
import {existsSync, readFileSync, renameSync, statSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

globalThis.oclif = {...globalThis.oclif, enableAutoTranspile: false} // as bin/run.cjs sets it
const bundled = join(root, 'dist', 'vendor', 'oclif.js')
const {Args, Config, Flags} = existsSync(bundled) ? await import(pathToFileURL(bundled).href) : await import('@oclif/core')
const {operations} = await import(pathToFileURL(join(root, 'dist', 'api', 'operations.js')).href)
const config = await Config.load(join(root, 'bin', 'run.cjs'))

const source = (f) => String(f)
const STRING_PARSE = source(Flags.string().parse)
const INTEGER_PARSE = source(Flags.integer().parse)
const BOOLEAN_PARSE = source(Flags.boolean().parse)
const ARG_PARSE = source(Args.string().parse)
// attributes that change no parsing (help text, grouping)
const INERT = new Set(['name', 'description', 'summary', 'helpGroup', 'helpLabel', 'helpValue', 'hidden', 'noCacheDefault', 'hasDynamicHelp'])

/** The description of one flag for the direct path, or a reason it cannot have one. */
function describeFlag(flag) {
  const out = {type: flag.type}
  for (const [key, value] of Object.entries(flag)) {
    if (INERT.has(key) || key === 'type' || value === undefined) continue
    if (key === 'parse') {
      const text = source(value)
      if (flag.type === 'boolean' ? text !== BOOLEAN_PARSE : text !== STRING_PARSE && text !== INTEGER_PARSE) return 'a parse function of its own'
      if (text === INTEGER_PARSE) out.integer = {min: flag.min, max: flag.max}
    } else if (key === 'char' && typeof value === 'string') out.char = value
    else if (key === 'allowNo' && typeof value === 'boolean') {
      if (value) out.allowNo = true
    } else if ((key === 'exclusive' || key === 'dependsOn') && Array.isArray(value) && value.every((v) => typeof v === 'string')) out[key] = value
    else if (key === 'multiple' && flag.type === 'option') {
      if (value) out.multiple = true
    } else if (key === 'input' && Array.isArray(value) && value.length === 0) continue
    else if ((key === 'min' || key === 'max') && typeof value === 'number') continue
    else if (key === 'options' && Array.isArray(value) && value.every((v) => typeof v === 'string')) out.options = value
    else if (key === 'default' && flag.type === 'option' && (typeof value === 'string' || typeof value === 'number')) out.default = value
    else if (key === 'env' && typeof value === 'string') out.env = value
    else return `${key}: ${JSON.stringify(value)}`
  }
  if ((flag.min !== undefined || flag.max !== undefined) && !out.integer) return 'bounds on a flag that is not an integer'
  return out
}

const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const commands = {}
const left = []
const withArgs = []
const ids = config.commandIDs
for (const id of ids) {
  const cmd = config.findCommand(id)
  if (cmd && (cmd.strict === false || Object.keys(cmd.args ?? {}).length > 0)) withArgs.push(id)
}
// hooks that run around a found command (init, prerun, postrun, finally, preparse…) or plugins: everything through
// oclif. command_not_found runs only for a command that does not exist, which the direct path never runs.
const hooks = Object.keys(pjson.oclif.hooks ?? {}).some((name) => name !== 'command_not_found') || (config.plugins?.size ?? 0) > 1
for (const id of hooks ? [] : [...config.commands].map((c) => c.id).sort()) {
  const entry = config.findCommand(id)
  if ([...(entry.aliases ?? []), ...(entry.hiddenAliases ?? [])].includes(id)) continue // an alias: oclif runs it
  const Cmd = await entry.load()
  const opId = Object.keys(operations).find((k) => operations[k] === Cmd.operation)
  if (opId === undefined) continue // not an operation command
  // the class must be the operation command itself: nothing of its run, parse, init, catch or finally overridden
  const own = ['run', 'parse', 'init', 'catch', 'finally', '_run'].filter((m) => Object.hasOwn(Cmd.prototype, m))
  if (own.length > 0 || Cmd.strict === false || Cmd.state || Cmd.deprecationOptions || Cmd.enableJsonFlag) {
    left.push(`${id}: ${own.length > 0 ? `overrides ${own.join(', ')}` : 'not a plain strict command'}`)
    continue
  }
  const flags = {}
  let why
  for (const [name, flag] of Object.entries({...Cmd.baseFlags, ...Cmd.flags})) {
    const d = describeFlag({...flag, name})
    if (typeof d === 'string') {
      why = `--${name}: ${d}`
      break
    }
    flags[name] = d
  }
  const args = []
  const noStdin = []
  for (const [name, arg] of Object.entries(Cmd.args ?? {})) {
    const extra = Object.keys(arg).filter((k) => !['name', 'description', 'parse', 'input', 'hidden', 'type', 'ignoreStdin'].includes(k) && arg[k] !== undefined && arg[k] !== false)
    if (arg.parse && source(arg.parse) !== ARG_PARSE) extra.push('parse')
    if (extra.length > 0) why ??= `argument ${name}: ${extra.join(', ')}`
    args.push(name)
    // oclif reads a missing argument from stdin unless it says not to: the direct path may leave these out
    if (arg.ignoreStdin === true) noStdin.push(name)
  }
  if (why) {
    left.push(`${id}: ${why}`)
    continue
  }
  // as JSON text: the direct path parses only the command it runs (src/cli/direct-argv.ts)
  commands[id] = JSON.stringify({op: opId, flags, args, ...(noStdin.length > 0 && {noStdin})})
}

const table = {
  format: 3,
  oclif: JSON.stringify(pjson.oclif),
  // oclif's help and version flags, with this package.json's additions (oclif's helpAddition, versionAddition)
  helpFlags: ['--help', ...(pjson.oclif.additionalHelpFlags ?? [])],
  versionFlags: ['--version', ...(pjson.oclif.additionalVersionFlags ?? [])],
  manifestSize: statSync(join(root, 'oclif.manifest.json')).size,
  usable: [...new Set(ids.flatMap((id) => id.split(':').map((_, i, a) => a.slice(0, i + 1).join(':'))))].sort(),
  withArgs: withArgs.sort(),
  commands,
}
const file = join(root, 'dist', 'direct-run.json')
writeFileSync(`${file}.${process.pid}.tmp`, JSON.stringify(table))
renameSync(`${file}.${process.pid}.tmp`, file)
console.log(`direct-run.json: ${Object.keys(commands).length} operation commands run without oclif${left.length > 0 ? `; through oclif: ${left.join('; ')}` : ''}`)
