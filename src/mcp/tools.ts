/**
 * The tools of `pay mcp`, derived, never written one by one: one tool per operation spec (src/api/operations.ts),
 * its input JSON Schema made from the very flags and arguments of the operation's command (operationInputs, whose
 * descriptions carry each field's rule from the endpoint's zod schema), its description from the spec and the
 * endpoint table, its examples from the spec's examples; and the journal (`pay journal`) as a lookup tool, from
 * that command's own flags. A property is named after its flag, `_` for `-` (`--account-name` → `account_name`).
 *
 * A money tool is one whose endpoint is idempotent in the table (it creates or moves money, or changes a mandate):
 * `pay mcp` lists it only when money is allowed (src/mcp/server.ts). The flags a tool has no use for are named in
 * NOT_TOOL_INPUTS with the reason, which the interface summary tells the agent; test/mcp/tools.test.ts fails when an
 * operation command gains a flag that is neither a property nor named there.
 *
 * No SDK and no zod here: the schemas are plain JSON Schema.
 */
import {Flags} from '@oclif/core'
import type {Arg, FlagInput} from '@oclif/core/interfaces'
import {descriptionOf, factsOf} from '../api/operation-help.js'
import {flagName, LOOKUP_REFERENCE, referenceLookup} from '../api/operation-names.js'
import {derived} from '../api/operations.generated.js'
import {operationList, type OperationSpec} from '../api/operations.js'
import {operationInputs} from '../cli/operation-command.js'
import {connectionFlags, globalFlags} from '../cli/flags.js'

/** Flags of the operation commands that are no tool input, and why (the interface summary lists them). */
const NOT_TOOL_INPUTS: Readonly<Record<string, string>> = {
  'from-file': 'bulk runs read a file of rows on this machine: run `pay … --from-file` in a shell',
  format: 'a --from-file setting',
  concurrency: 'a --from-file setting',
  results: 'a --from-file setting',
  'retry-failed': 'a --from-file setting',
  field: 'extra body fields are given as `data`, a JSON object',
  open: 'no browser for an agent: the link is in the result',
  yes: 'no terminal to confirm on: money tools exist only when `pay mcp` is started with --allow-money, and for a live service with --allow-live-money as well, which is the consent for the session',
  'force-new': "an agent's retry must never become a second request: a new request takes a new merchant reference",
  'idempotency-key': 'the journal on this machine keys each request: the same call with the same arguments reuses its key (an unknown outcome is resumed that way), and a new key would make a retry a second request',
}

type JsonSchema = Record<string, unknown>
type InputType = 'string' | 'integer' | 'boolean' | 'object' | 'array'

/** One input of a tool: its property, and the name runOperation (or the command) knows it by. */
interface ToolInput {
  property: string
  /** The flag (`account-name`) or argument (`id`) name. */
  name: string
  /** What a message of the command line calls it: `--account-name`, `ID`. */
  label: string
  type: InputType
  min?: number
  max?: number
  /** The flag's default, which a command-backed tool applies as oclif's parse does. */
  default?: unknown
}

export interface ToolSpec {
  name: string
  title: string
  description: string
  inputSchema: {type: 'object'; properties: Record<string, JsonSchema>; required?: string[]; additionalProperties: false; examples?: Record<string, unknown>[]}
  /** Creates or moves money (an idempotent endpoint): listed only when money is allowed. */
  money: boolean
  inputs: ToolInput[]
  /** The operation it runs; undefined for the journal tool. */
  op?: OperationSpec
  annotations: {title: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean}
}

/** A flag's or argument's name as a property: `account-name` → `account_name`. */
const propertyOf = (name: string): string => name.replaceAll('-', '_')

/** The tool name of an operation: `collections:create` → `collections_create`, `virtual-accounts:get` → `virtual_accounts_get`. */
const toolNameOf = (command: string): string => command.replace(/[:-]/g, '_')

const INTEGER_PARSE = String(Flags.integer().parse)

type AnyFlag = {type: 'boolean' | 'option'; description?: string; options?: readonly string[]; default?: unknown; min?: number; max?: number; parse?: unknown; multiple?: boolean}

function typeOfFlag(flag: AnyFlag, name: string): InputType {
  if (flag.type === 'boolean') return 'boolean'
  if (name === 'data') return 'object'
  if (flag.multiple) return 'array'
  return String(flag.parse) === INTEGER_PARSE ? 'integer' : 'string'
}

/** Renames the command line's names in a text to the tool's: `--rail` → `rail`, `MANDATE_ID` → `mandate_id`. */
export function renamer(inputs: readonly ToolInput[]): (text: string) => string {
  const byFlag = new Map(inputs.filter((i) => i.label.startsWith('--')).map((i) => [i.name, i.property]))
  const args = inputs.filter((i) => !i.label.startsWith('--'))
  return (text) => {
    let out = text.replace(/--([a-z][a-z0-9-]*)/g, (m, n: string) => byFlag.get(n) ?? m)
    for (const a of args) out = out.replace(new RegExp(`\\b${a.label}\\b`, 'g'), a.property)
    return out
  }
}

/** The properties of a command's flags and arguments (NOT_TOOL_INPUTS left out), and the inputs behind them. */
function propertiesOf(flags: FlagInput, args: Record<string, Arg<string | undefined>>, required: (name: string) => boolean): {inputs: ToolInput[]; properties: Record<string, JsonSchema>; required: string[]} {
  const inputs: ToolInput[] = []
  const described: {input: ToolInput; description: string; schema: JsonSchema}[] = []
  const add = (name: string, label: string, type: InputType, description: string, extra: JsonSchema, bounds: {min?: number; max?: number} = {}) => {
    const input: ToolInput = {property: propertyOf(name), name, label, type, ...bounds, ...(extra.default !== undefined ? {default: extra.default} : {})}
    inputs.push(input)
    described.push({input, description, schema: extra})
  }
  for (const [name, arg] of Object.entries(args)) add(name, name.toUpperCase(), 'string', arg.description ?? '', {})
  for (const [name, raw] of Object.entries(flags)) {
    if (name in NOT_TOOL_INPUTS) continue
    const flag = raw as unknown as AnyFlag
    const type = typeOfFlag(flag, name)
    const extra: JsonSchema = {}
    if (flag.options) extra.enum = [...flag.options]
    if (type === 'array') extra.items = {type: 'string'}
    if (flag.default !== undefined && typeof flag.default !== 'function') extra.default = flag.default
    if (type === 'integer') {
      if (flag.min !== undefined) extra.minimum = flag.min
      if (flag.max !== undefined) extra.maximum = flag.max
    }
    const description = name === 'data' ? 'Extra JSON body fields the spec does not show, as a JSON object (merged into the body)' : (flag.description ?? '')
    add(name, `--${name}`, type, description, extra, type === 'integer' ? {min: flag.min, max: flag.max} : {})
  }
  const rename = renamer(inputs)
  const properties: Record<string, JsonSchema> = {}
  for (const {input, description, schema} of described) {
    properties[input.property] = {type: input.type, description: rename(description), ...schema}
  }
  return {inputs, properties, required: inputs.filter((i) => required(i.name)).map((i) => i.property)}
}

/** Splits an example's command line into words (double and single quotes). */
function words(line: string): string[] {
  const out: string[] = []
  for (const m of line.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g)) out.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : (m[2] ?? m[3]))
  return out
}

/**
 * The arguments of a tool that an example command line of the spec gives; flags that are no input of the tool
 * (output flags, --open, --jq) are dropped with their values.
 */
function exampleArguments(op: OperationSpec, inputs: readonly ToolInput[], command: string): Record<string, unknown> {
  const known: Record<string, AnyFlag> = {...globalFlags, ...connectionFlags, ...(operationInputs(op).flags as unknown as Record<string, AnyFlag>)} as Record<string, AnyFlag>
  const byChar = new Map(Object.entries(known).flatMap(([n, f]) => ((f as {char?: string}).char ? [[(f as {char?: string}).char!, n] as const] : [])))
  const byName = new Map(inputs.map((i) => [i.name, i]))
  const positional = inputs.filter((i) => !i.label.startsWith('--'))
  const rest = words(command).slice(op.command.split(':').length)
  const result: Record<string, unknown> = {}
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i]
    if (!word.startsWith('-') || word === '-') {
      // a lookup's reference given as the argument, to the tool's one reference input (operationTool)
      const input = positional.shift() ?? (referenceLookup(op) ? byName.get(LOOKUP_REFERENCE.name) : undefined)
      if (input) result[input.property] = word
      continue
    }
    let name = word.startsWith('--') ? word.slice(2) : (byChar.get(word.slice(1)) ?? word.slice(1))
    let value: string | undefined
    if (name.includes('=')) [name, value] = [name.slice(0, name.indexOf('=')), name.slice(name.indexOf('=') + 1)]
    const flag = known[name]
    if (flag && flag.type === 'option' && value === undefined) value = rest[++i]
    const input = byName.get(name)
    if (!input) continue
    if (input.type === 'boolean') result[input.property] = true
    else if (input.type === 'integer') result[input.property] = Number(value)
    else if (input.type === 'object') result[input.property] = JSON.parse(value ?? '{}')
    else result[input.property] = value
  }
  return result
}

const MONEY_NOTE = `Money tool: exactly once across retries. Calling it again with the same arguments sends nothing when the first call succeeded (the earlier answer is returned, marked as such), and reuses the same Idempotency-Key when its outcome was unknown. dry_run: true returns the request that would be sent, and sends nothing.`

/** The tool of one operation. */
function operationTool(op: OperationSpec): ToolSpec {
  const {flags, args} = operationInputs(op)
  // a lookup by reference takes it as an argument or as --reference on the command line: one input for a tool
  const lookup = referenceLookup(op)
  if (lookup?.arg === undefined) delete args[LOOKUP_REFERENCE.name]
  else delete flags[LOOKUP_REFERENCE.name]
  const rules = derived.rules[op.command] ?? {}
  const names = new Map(op.fields.map((f) => [flagName(f) ?? f.arg!, f]))
  const isRequired = (name: string) => {
    const field = names.get(name)
    return field !== undefined && (rules[field.key] ?? '').startsWith('required')
  }
  const {inputs, properties, required} = propertiesOf(flags, args, isRequired)
  const money = [op.endpoint, ...(op.alternatives ?? []).map((a) => a.endpoint)].some((id) => factsOf(id).idempotent)
  const rename = renamer(inputs)
  const examples = op.examples.map((e) => ({description: e.description, arguments: exampleArguments(op, inputs, e.command)}))
  const description = [
    rename(op.summary) + '.',
    rename(descriptionOf(op)).replace(/ \(exit \d+\)/g, ''),
    money ? MONEY_NOTE : 'Read-only.',
    `The same as \`pay ${op.command.replace(/:/g, ' ')}\`.`,
    'Examples:',
    ...examples.map((e) => `- ${e.description}: ${JSON.stringify(e.arguments)}`),
  ].join('\n')
  const name = toolNameOf(op.command)
  return {
    name,
    title: op.summary,
    description,
    inputSchema: {type: 'object', properties, ...(required.length > 0 ? {required} : {}), additionalProperties: false, examples: examples.map((e) => e.arguments)},
    money,
    inputs,
    op,
    annotations: {title: op.summary, readOnlyHint: !money, destructiveHint: false, idempotentHint: true, openWorldHint: true},
  }
}

/** A tool of a command that is not an operation (`pay journal`, `pay webhook history`), from its own flags and arguments. */
export function commandTool(name: string, command: {summary?: string; description?: string; flags?: FlagInput; args?: Record<string, Arg<string | undefined>>}): ToolSpec {
  const {inputs, properties} = propertiesOf(command.flags ?? {}, command.args ?? {}, () => false)
  const rename = renamer(inputs)
  const description = [command.summary, rename(command.description ?? ''), 'Read-only: reads what is kept on this machine, sends nothing.'].filter(Boolean).join('\n')
  return {
    name,
    title: command.summary ?? name,
    description,
    inputSchema: {type: 'object', properties, additionalProperties: false},
    money: false,
    inputs,
    annotations: {title: command.summary ?? name, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false},
  }
}

/** Every operation's tool, in the order of the specs. */
export function operationTools(): ToolSpec[] {
  return operationList.map(operationTool)
}

export interface ArgumentProblem {
  field: string
  rule: string
}

/**
 * A tool call's arguments as the values runOperation takes (keyed by flag or argument name), or the problems of
 * their shape: an unknown property, a wrong JSON type, an integer out of bounds. The rules of each field are
 * runOperation's to check (the same as the command line's). A number is refused where a string is wanted:
 * amounts are decimal strings, never JSON numbers.
 */
export function valuesOf(tool: ToolSpec, args: unknown): {values: Record<string, unknown>; problems: ArgumentProblem[]} {
  const values: Record<string, unknown> = {}
  const problems: ArgumentProblem[] = []
  if (args === undefined || args === null) return {values, problems}
  if (typeof args !== 'object' || Array.isArray(args)) return {values, problems: [{field: '(arguments)', rule: 'must be a JSON object'}]}
  const byProperty = new Map(tool.inputs.map((i) => [i.property, i]))
  for (const [key, value] of Object.entries(args as Record<string, unknown>)) {
    const input = byProperty.get(key)
    if (!input) {
      problems.push({field: key, rule: `is not an input of ${tool.name} (its inputs: ${tool.inputs.map((i) => i.property).join(', ') || 'none'})`})
      continue
    }
    if (value === null || value === undefined) continue
    if (input.type === 'string') {
      if (typeof value === 'string') values[input.name] = value
      else problems.push({field: key, rule: typeof value === 'number' ? 'must be a string (amounts and numbers are sent as decimal strings, e.g. "10.00")' : 'must be a string'})
    } else if (input.type === 'boolean') {
      if (typeof value === 'boolean') values[input.name] = value
      else problems.push({field: key, rule: 'must be true or false'})
    } else if (input.type === 'integer') {
      const n = typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value
      if (typeof n !== 'number' || !Number.isInteger(n)) problems.push({field: key, rule: 'must be a whole number'})
      else if (input.min !== undefined && n < input.min) problems.push({field: key, rule: `must be at least ${input.min}`})
      else if (input.max !== undefined && n > input.max) problems.push({field: key, rule: `must be at most ${input.max}`})
      else values[input.name] = n
    } else if (input.type === 'array') {
      const list = typeof value === 'string' ? [value] : value
      if (Array.isArray(list) && list.every((v) => typeof v === 'string')) values[input.name] = list
      else problems.push({field: key, rule: 'must be a list of strings'})
    } else if (typeof value === 'object' && !Array.isArray(value)) values[input.name] = JSON.stringify(value)
    else problems.push({field: key, rule: 'must be a JSON object'})
  }
  return {values, problems}
}

/** The command line that does what a tool call does (for the journal's resume command and people). */
export function commandLineOf(tool: ToolSpec, values: Record<string, unknown>): string[] {
  const argv = tool.op ? tool.op.command.split(':') : [tool.name]
  for (const input of tool.inputs) {
    const v = values[input.name]
    if (v === undefined || v === false) continue
    if (!input.label.startsWith('--')) argv.push(String(v))
    else if (v === true) argv.push(input.label)
    else argv.push(input.label, String(v))
  }
  return argv
}

/**
 * The interface summary an agent reads as a resource: every tool with its endpoint (method, path, idempotent),
 * whether it moves money, and each input with its rule. Made from the same specs as the tools.
 */
export function interfaceSummary(tools: readonly ToolSpec[]): string {
  const lines = [
    '# pay: the Payments Service as tools',
    '',
    'Made from the endpoint table and operation specs of `pay` (the same rules as its command line).',
    'Amounts are decimal strings ("1500.00"), never numbers. Currency codes are 3 letters. Money tools are idempotent: the same call with the same arguments is done at most once (the journal on this machine, and the Idempotency-Key the service honours).',
    'States: collections, payouts and checkout sessions end `succeeded` or `failed`; mandates `succeeded` (approved) or `cancelled`; subscriptions `active`, `failed` or `cancelled`.',
    '',
  ]
  for (const tool of tools) {
    const op = tool.op
    lines.push(`## ${tool.name}${tool.money ? ' (money)' : ''}`, '', tool.title + '.')
    if (op) {
      const ids = [op.endpoint, ...(op.alternatives ?? []).map((a) => a.endpoint)]
      for (const id of ids) {
        const f = factsOf(id)
        lines.push(`- \`${f.method} ${f.path}\`${f.idempotent ? ' (idempotent: Idempotency-Key)' : ''}`)
      }
    }
    const required = new Set(tool.inputSchema.required ?? [])
    for (const [name, schema] of Object.entries(tool.inputSchema.properties)) {
      lines.push(`- \`${name}\` (${String(schema.type)}${required.has(name) ? ', required' : ''}): ${String(schema.description ?? '')}`)
    }
    lines.push('')
  }
  lines.push('## Flags of the command line that are no tool input', '')
  for (const [flag, why] of Object.entries(NOT_TOOL_INPUTS)) lines.push(`- \`--${flag}\`: ${why}`)
  lines.push('')
  return lines.join('\n')
}
