/**
 * The oclif command of an operation spec (src/api/operations.ts): its summary, description (the endpoint line
 * from the table first), examples, flags and arguments with their rule texts, and a run() that hands the parsed
 * values to runOperation. A resource command file is one line:
 *
 *   export default class CollectionsCreate extends operationCommand('collections:create') {}
 *
 * Light: imports @oclif/core, the light flag module and the spec with its generated help (no zod), so loading a
 * command for --help stays cheap; runOperation comes in through the lazy runtime inside run().
 */
import {Args, Flags} from '@oclif/core'
import type {Arg, FlagInput} from '@oclif/core/interfaces'
import {descriptionOf, examplesOf, factsOf, fieldHelp} from '../api/operation-help.js'
import {flagName, LOOKUP_REFERENCE, referenceLookup} from '../api/operation-names.js'
import {operations, type OperationId, type OperationSpec} from '../api/operations.js'
import {ApiCommand} from './base-command.js'
import {bodyFlags, bulkFlags, confirmFlags, idempotencyFlags, listFlags, onePageAllFlag, waitFlags} from './flags.js'

/** The flags and arguments of an operation, in the order of its fields. */
export function operationInputs(op: OperationSpec): {flags: FlagInput; args: Record<string, Arg<string | undefined>>} {
  const flags: FlagInput = {}
  const args: Record<string, Arg<string | undefined>> = {}
  // a lookup by merchant reference takes it as the argument REFERENCE or as --reference, whichever the spec declared
  const lookup = referenceLookup(op)
  for (const field of op.fields) {
    const name = flagName(field)
    const help = fieldHelp(op, field)
    // the lookup's argument never reads stdin (oclif's default for a missing argument): --reference may give it
    if (name === undefined) args[field.arg!] = Args.string({description: help, ...(field === lookup && {ignoreStdin: true})})
    else flags[name] = Flags.string({description: help, char: field.char as 'a' | undefined, helpValue: field.helpValue})
    if (field !== lookup) continue
    const {name: ref, char, helpValue} = LOOKUP_REFERENCE
    if (name === undefined) flags[ref] = Flags.string({description: `The same as the argument ${ref.toUpperCase()}`, char, helpValue})
    else args[ref] = Args.string({description: `The same as --${ref}`, ignoreStdin: true})
  }
  for (const alt of op.alternatives ?? []) if (alt.help) flags[alt.flag] = Flags.boolean({description: alt.help})
  if (op.paging) flags[op.paging.flag] = Flags.boolean({description: op.paging.help})
  if (op.list) Object.assign(flags, op.paging ? {} : onePageAllFlag, listFlags)
  if (op.confirm) Object.assign(flags, confirmFlags)
  if (op.open) flags[op.open.flag] = Flags.boolean({description: op.open.help})
  if (op.wait) Object.assign(flags, waitFlags)
  const ids = [op.endpoint, ...(op.alternatives ?? []).map((a) => a.endpoint)]
  if (ids.some((id) => factsOf(id).idempotent)) Object.assign(flags, idempotencyFlags)
  // --from-file: one request per row (src/bulk/), on the idempotent operations whose body comes from their inputs
  if (factsOf(op.endpoint).idempotent && op.fixedBody === undefined && !op.paging) Object.assign(flags, bulkFlags)
  if (op.extraBody ?? (op.fixedBody === undefined && factsOf(op.endpoint).objectBody)) Object.assign(flags, bodyFlags)
  return {flags, args}
}

/** The base class of the command of operation `id`. */
export function operationCommand(id: OperationId) {
  const op: OperationSpec = operations[id]
  const {flags, args} = operationInputs(op)

  abstract class OperationCommand extends ApiCommand {
    static override summary = op.summary
    static override description = descriptionOf(op)
    static override examples = examplesOf(op)
    static override flags = flags
    static override args = args
    static override aliases = [...(op.aliases ?? [])]
    /** The spec (a getter, so that oclif does not copy it into the manifest). */
    static get operation(): OperationSpec {
      return op
    }

    async run(): Promise<void> {
      // oclif's parse() spreads the class it is given, which drops inherited statics: name them here
      const parsed = await this.parse({flags, args, baseFlags: (this.constructor as typeof ApiCommand).baseFlags, strict: true})
      const rt = await this.runtime()
      // the same run as bin/run.cjs's direct path, which parses argv without oclif (src/cli/direct-argv.ts)
      process.exitCode = await rt.runOperationCommand(op, parsed.flags, parsed.args, {id: this.id ?? '', userAgent: this.userAgent, out: await this.output()})
    }
  }
  return OperationCommand
}
