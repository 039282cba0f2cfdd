/**
 * The direct path of an operation command: bin/run.cjs parses argv with this, from a table the build wrote from the
 * commands' own oclif flag definitions (scripts/direct-table.mjs → dist/direct-run.json), and hands the values to
 * runOperationCommand in the runtime without loading @oclif/core (~25 ms of every command).
 *
 * It follows oclif's parser (@oclif/core lib/parser/parse.js, lib/help/util.js) for what it accepts and answers
 * `undefined` for anything else: an unknown or repeated flag, a value that begins with `-`, `--`, a help or version
 * flag (oclif's, with package.json's additionalHelpFlags/additionalVersionFlags, from the table), a missing argument (oclif would read stdin for it, unless the argument says ignoreStdin), a value oclif would reject (not an integer, out of
 * range, not one of the options), flags given together that exclude or lack each other, a flag set from the
 * environment. bin/run.cjs then runs oclif, so every message
 * stays oclif's own. Light: no imports, so loading it costs nothing measurable.
 */

/** One flag as the build describes it (only the kinds the direct path reproduces exactly). */
interface DirectFlag {
  type: 'boolean' | 'option'
  char?: string
  multiple?: boolean
  /** an integer flag (oclif's Flags.integer) with its bounds */
  integer?: {min?: number; max?: number}
  options?: string[]
  default?: string | number
  env?: string
  /** `--no-<name>` sets a boolean false */
  allowNo?: boolean
  /** flags that may not be given with this one, or that must be (oclif answers either with an error) */
  exclusive?: string[]
  dependsOn?: string[]
}

interface DirectCommand {
  /** the operation id in src/api/operations.ts */
  op: string
  flags: Record<string, DirectFlag>
  /** positional argument names, in order */
  args: string[]
  /** the arguments oclif does not read from stdin when missing (ignoreStdin): they may be left out */
  noStdin?: string[]
}

interface DirectTable {
  format: 3
  /** JSON of package.json's oclif section and the manifest's size, as the build saw them */
  oclif: string
  manifestSize: number
  /** `--help` and `--version` with package.json's oclif.additionalHelpFlags / additionalVersionFlags */
  helpFlags: string[]
  versionFlags: string[]
  /** every command id and alias with each of its prefixes (oclif's collectUsableIds) */
  usable: string[]
  /** command ids (and aliases) that take arguments or are not strict: oclif stops reading id words after them */
  withArgs: string[]
  /**
   * the commands the direct path may run, each as its JSON text: a run parses only its own command's (the whole
   * table as objects cost every start ~3M instructions)
   */
  commands: Record<string, string>
}

interface DirectPlan {
  id: string
  op: string
  flags: Record<string, unknown>
  args: Record<string, string>
  /** argv after the command id (what oclif's Command sees as this.argv) */
  argv: string[]
}

/** oclif's command id for argv with topicSeparator ' ' (help/util.js collateSpacedCmdIDFromArgs). */
function commandId(argv: string[], table: DirectTable): {id: string; rest: string[]} {
  if (argv.length === 1) return {id: argv[0], rest: []}
  const usable = new Set(table.usable)
  const withArgs = new Set(table.withArgs)
  const final: string[] = []
  for (const arg of argv) {
    const next = [...final, arg].join(':')
    if (usable.has(next)) final.push(arg)
    else if (arg.includes('=') || arg.startsWith('-') || withArgs.has(final.join(':'))) break
    else final.push(arg)
  }
  return {id: final.join(':'), rest: argv.slice(final.length)}
}

/** What oclif's Flags.integer accepts, or undefined. */
function integerOf(input: string, bounds: {min?: number; max?: number}): number | undefined {
  if (!/^-?\d+$/.test(input)) return undefined
  const n = Number.parseInt(input, 10)
  if (bounds.min !== undefined && n < bounds.min) return undefined
  if (bounds.max !== undefined && n > bounds.max) return undefined
  return n
}

/** The parsed command line of an operation command, exactly as oclif would parse it, or undefined (ask oclif). */
export function planDirect(argv: string[], table: DirectTable, env: Record<string, string | undefined> = {}): DirectPlan | undefined {
  // a help or version flag anywhere (oclif answers help wherever it is), as the table read them from package.json
  if (argv.length === 0 || argv.some((a) => table.helpFlags.includes(a) || table.versionFlags.includes(a) || a === '--')) return undefined
  const {id, rest} = commandId(argv, table)
  const text = Object.hasOwn(table.commands, id) ? table.commands[id] : undefined
  if (text === undefined) return undefined
  const cmd = JSON.parse(text) as DirectCommand
  const byChar = new Map(Object.entries(cmd.flags).flatMap(([name, f]) => (f.char ? [[f.char, name] as const] : [])))
  const given = new Map<string, string[]>()
  const args: Record<string, string> = {}
  let argCount = 0
  let current: DirectFlag | undefined
  let currentName = ''
  for (let i = 0; i < rest.length; i++) {
    const token = rest[i]
    if (token.startsWith('-') && token !== '-') {
      const long = token.startsWith('--')
      const eq = long ? token.indexOf('=') : -1
      let name = long ? token.slice(2, eq === -1 ? undefined : eq) : byChar.get(token[1])
      let negated = false
      if (long && name !== undefined && !Object.hasOwn(cmd.flags, name) && name.startsWith('no-') && cmd.flags[name.slice(3)]?.allowNo) {
        name = name.slice(3)
        negated = true
      }
      const flag = name !== undefined && Object.hasOwn(cmd.flags, name) ? cmd.flags[name] : undefined
      if (!flag || name === undefined) return undefined
      if (flag.type === 'boolean') {
        if (eq !== -1 || (!long && token.length > 2)) return undefined
        given.set(name, [negated ? 'false' : 'true']) // the last one wins, as in oclif
        continue
      }
      if (negated) return undefined
      let value: string | undefined
      if (long) value = eq === -1 ? rest[++i] : token.slice(eq + 1)
      else value = token.length < 3 ? rest[++i] : token.slice(token[2] === '=' ? 3 : 2)
      if (value === undefined || (value.startsWith('-') && value !== '-')) return undefined
      if (flag.options && !flag.options.includes(value)) return undefined
      const before = given.get(name)
      if (before && !flag.multiple) return undefined
      given.set(name, [...(before ?? []), value])
      current = flag
      currentName = name
      continue
    }
    if (current?.multiple) {
      // oclif's multiple flags are greedy: what follows them is theirs until the next flag
      if (current.options && !current.options.includes(token)) return undefined
      given.get(currentName)!.push(token)
      continue
    }
    if (argCount >= cmd.args.length) return undefined // strict: an unexpected argument
    args[cmd.args[argCount++]] = token
  }
  // a missing argument: oclif reads it from stdin when stdin is not a terminal
  if (cmd.args.slice(argCount).some((name) => !cmd.noStdin?.includes(name))) return undefined
  const flags: Record<string, unknown> = {}
  for (const [name, flag] of Object.entries(cmd.flags)) {
    const values = given.get(name)
    if (values !== undefined && (flag.exclusive?.some((other) => given.has(other)) || flag.dependsOn?.some((other) => !given.has(other)))) return undefined
    if (values === undefined) {
      if (flag.env !== undefined && env[flag.env]) return undefined
      if (flag.default !== undefined) flags[name] = flag.default
      continue
    }
    if (flag.type === 'boolean') {
      flags[name] = values[0] === 'true'
      continue
    }
    const parsed: Array<string | number> = []
    for (const v of values) {
      const p = flag.integer ? integerOf(v, flag.integer) : v
      if (p === undefined) return undefined
      parsed.push(p)
    }
    flags[name] = flag.multiple ? parsed : parsed[0]
  }
  return {id, op: cmd.op, flags, args, argv: rest}
}
