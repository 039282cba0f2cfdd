/**
 * The command surface as data, for scripts and coding agents (`pay commands --json`) and for the completion
 * scripts (`pay completion bash|zsh|fish`): read from what oclif already has (the manifest: every command's
 * flags, arguments, options and examples) and the operation specs (which flags are required, which take a
 * value from a list the service knows: providers, banks, plans). No command module is loaded.
 */
import type {Command} from '@oclif/core'
import {derived} from '../api/operations.generated.js'
import {flagName} from '../api/operation-names.js'
import {operations, type OperationSpec} from '../api/operations.js'
import type {ChoiceSource} from '../api/operation-types.js'
import type {Output} from '../output/output.js'

/** Lists whose values completion offers from its local cache (src/cli/completion-cache.ts). */
export type ValueSource = ChoiceSource | 'profiles'

export interface FlagSurface {
  name: string
  char?: string
  type: 'boolean' | 'string' | 'integer'
  required: boolean
  multiple: boolean
  choices?: string[]
  /** Values known from the service or the stored profiles, completed from a local cache. */
  values?: ValueSource
  default?: unknown
  description?: string
  global: boolean
}

export interface CommandSurface {
  command: string
  id: string
  summary?: string
  description?: string
  aliases: string[]
  args: {name: string; description?: string; required: boolean; choices?: string[]}[]
  flags: FlagSurface[]
  examples: {description?: string; command: string}[]
}

type Loadable = Command.Loadable

function operationOf(id: string): OperationSpec | undefined {
  return (operations as Record<string, OperationSpec>)[id]
}

/** The list a flag's value comes from: the spec's prompt choices, or --profile. */
function valuesOf(op: OperationSpec | undefined, name: string): ValueSource | undefined {
  if (name === 'profile') return 'profiles'
  const field = op?.fields.find((f) => flagName(f) === name)
  const prompt = field?.prompt
  const choices = prompt && typeof prompt === 'object' ? prompt.choices : undefined
  return typeof choices === 'string' ? (choices as ChoiceSource) : undefined
}

/**
 * The values a flag's help lists as `a|b|c` (--outcome accepted|refused|unknown, --frequency DAILY|WEEKLY|MONTHLY):
 * offered by completion like oclif's options, for flags whose values are checked in their run function (a tailored
 * message) or by the schema (case folded) rather than by oclif.
 */
function listedValues(helpValue: string | undefined): string[] | undefined {
  return helpValue !== undefined && /^[\w-]+(?:\|[\w-]+)+$/.test(helpValue) ? helpValue.split('|') : undefined
}

function requiredBySpec(op: OperationSpec | undefined, name: string): boolean {
  const field = op?.fields.find((f) => flagName(f) === name)
  if (!op || !field) return false
  return (derived.rules[op.command]?.[field.key] ?? '').split('; ').includes('required')
}

function render(command: string, id: string): string {
  return command.replace(/<%=\s*config\.bin\s*%>/g, 'pay').replace(/<%=\s*command\.id\s*%>/g, id)
}

function commandSurface(cmd: Loadable): CommandSurface {
  const op = operationOf(cmd.id)
  const id = cmd.id.replace(/:/g, ' ')
  const flags: FlagSurface[] = Object.values(cmd.flags ?? {})
    .filter((f) => !f.hidden)
    .map((f) => {
      const opt = f.type === 'option' ? (f as Command.Flag.Cached & {options?: string[]; default?: unknown; helpValue?: string}) : undefined
      const integer = opt !== undefined && (typeof opt.default === 'number' || opt.helpValue === 'N')
      const choices = opt?.options ? [...opt.options] : listedValues(opt?.helpValue)
      return {
        name: f.name,
        ...(f.char ? {char: f.char} : {}),
        type: f.type === 'boolean' ? 'boolean' : integer ? 'integer' : 'string',
        required: Boolean(f.required) || requiredBySpec(op, f.name),
        multiple: Boolean((f as {multiple?: boolean}).multiple),
        ...(choices ? {choices} : {}),
        ...(valuesOf(op, f.name) ? {values: valuesOf(op, f.name)} : {}),
        ...(opt?.default !== undefined ? {default: opt.default} : {}),
        description: f.summary ?? f.description,
        global: f.helpGroup === 'GLOBAL',
      } satisfies FlagSurface
    })
  const args = Object.values(cmd.args ?? {}).map((a) => ({name: a.name, description: a.description, required: Boolean(a.required), ...(a.options ? {choices: [...a.options]} : {})}))
  const examples = (cmd.examples ?? []).map((e) => (typeof e === 'string' ? {command: render(e, id)} : {description: e.description, command: render(e.command, id)}))
  return {command: `pay ${id}`, id: cmd.id, summary: cmd.summary, description: cmd.description, aliases: [...(cmd.aliases ?? [])], args, flags, examples}
}

/** Every visible command, sorted by id. */
export function surfaceOf(commands: readonly Loadable[]): CommandSurface[] {
  return commands
    .filter((c) => !c.hidden)
    .map((c) => commandSurface(c))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
}

/** `pay commands`: every command and its summary; with --json, the whole surface. */
export function runCommands(commands: readonly Loadable[], out: Output): CommandSurface[] {
  const surface = surfaceOf(commands)
  if (out.json) out.data(JSON.stringify(surface))
  else out.data(out.human(surface.map((c) => ({command: c.command, summary: c.summary ?? ''})), {columns: ['command', 'summary']}))
  return surface
}
