/**
 * The shape of a flow file (JSON or YAML):
 *
 *   name: collect and verify            # optional; default: the file name
 *   secrets: [PAY_CLIENT_SECRET]        # optional: secret-named ${env.…} allowed, their values redacted
 *   steps:
 *     - id: charge                      # later steps refer to its answer as ${steps.charge.…}
 *       call: collections.create        # an endpoint id of src/api/endpoints.ts
 *       path: {…}  query: {…}  body: {…}
 *       idempotency_key: …              # optional; default: a new key per step and run, reused by every retry
 *       wait: true                      # or {timeout: 120}: poll until a terminal state
 *       expect: {status: 201, exit: ok, fields: {status: succeeded, "virtual_account.bank_name": …}}
 *
 * A step names either an endpoint with `call` and its inputs by where they go in the request (path / query / body),
 * a sandbox control with `sandbox: approve|succeed|fail|advance` and its `target` (./sandbox-steps.ts; refused
 * against anything but a sandbox), or a resource command with `command: collections create` and `inputs` named like its flags and arguments
 * (`{amount: "10.00", reference: order-1, mobile: …}`), mapped onto the endpoint through the operation spec
 * (src/api/operations.ts) exactly as the command line is, rules and flag names included.
 */
import * as z from 'zod'
import {EXIT_CLASSES} from '../base/exit-codes.js'
import {SANDBOX_ACTION_NAMES} from './sandbox-steps.js'

/** Exit-code classes a step may `expect` by name (README: Exit codes): ok, other, usage, auth, not_found… */
export {EXIT_CLASSES}

const STEP_ID = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/

const scalar = z.union([z.string(), z.number(), z.boolean()])

const expectSchema = z.strictObject({
  status: z.number().int().min(100).max(599).optional(),
  exit: z
    .union([z.number().int().min(0).max(255), z.string().refine((v) => Object.hasOwn(EXIT_CLASSES, v), {message: `must be an exit code or one of ${Object.keys(EXIT_CLASSES).join(', ')}`})])
    .optional(),
  fields: z.record(z.string().min(1), z.unknown()).optional(),
})

const stepSchema = z.strictObject({
  id: z.string().regex(STEP_ID, 'must start with a letter and hold only letters, digits, "_" or "-" (at most 64)'),
  name: z.string().optional(),
  call: z.string().optional(),
  command: z.string().min(1).optional(),
  inputs: z.record(z.string(), z.union([scalar, z.null()])).optional(),
  path: z.record(z.string(), scalar).optional(),
  query: z.record(z.string(), scalar).optional(),
  body: z.unknown().optional(),
  idempotency_key: z.string().min(1).max(255).optional(),
  wait: z.union([z.boolean(), z.strictObject({timeout: z.number().int().min(1).max(86_400).optional()})]).optional(),
  expect: expectSchema.optional(),
  // a sandbox control step (./sandbox-steps.ts): what to do, and to what
  sandbox: z.enum(SANDBOX_ACTION_NAMES).optional(),
  target: scalar.optional(),
})

export const flowSchema = z.strictObject({
  name: z.string().min(1).optional(),
  description: z.string().optional(),
  /**
   * Environment variables the flow may use although their names look like secrets (the one redactor's patterns,
   * src/base/redact.ts): their values are redacted in every output, report and --junit file of the run.
   */
  secrets: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name')).optional(),
  steps: z.array(stepSchema).min(1, 'must list at least one step'),
})

export type FlowStep = z.infer<typeof stepSchema>
export type FlowExpect = z.infer<typeof expectSchema>

export interface Flow {
  name: string
  file: string
  steps: FlowStep[]
  /** The `secrets:` list: variables allowed in ${env.…} although secret-named, their values redacted. */
  secrets: string[]
}
