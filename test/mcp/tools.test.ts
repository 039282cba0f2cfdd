/**
 * The tools of `pay mcp` against the operation spec and the commands' flags, so that they cannot drift: every flag
 * and argument of every operation command (as oclif's manifest lists them) is a property of its tool with its
 * type, bounds, choices and rule, or is named with a reason in the interface summary an agent reads.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {derived} from '../../src/api/operations.generated.js'
import {flagName} from '../../src/api/operation-names.js'
import {operationList, operations, type OperationSpec} from '../../src/api/operations.js'
import {commandLineOf, interfaceSummary, operationTools, renamer, valuesOf} from '../../src/mcp/tools.js'
import {ROOT} from '../helpers/cli.js'

interface ManifestFlag {
  name: string
  type: 'boolean' | 'option'
  helpGroup?: string
  options?: string[]
  default?: unknown
  multiple?: boolean
}
/** The tool of an operation, as pay mcp lists it. */
const operationTool = (op: OperationSpec) => operationTools().find((t) => t.op === op)!
/** A tool's name: its command's, `_` for `:` and `-`; a property's: its flag's, `_` for `-` (what an agent calls). */
const toolNameOf = (command: string) => command.replace(/[:-]/g, '_')
const propertyOf = (name: string) => name.replaceAll('-', '_')
/** The flags the interface summary names as no tool input, each with its reason. */
const notToolInputs = new Map([...interfaceSummary(operationTools()).matchAll(/^- `--([a-z-]+)`: (.+)$/gm)].map((m) => [m[1], m[2]]))

const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, {flags: Record<string, ManifestFlag>; args: Record<string, {name: string}>}>}

describe('tool input schemas against the operation spec', () => {
  it('one tool per operation, named after its command', () => {
    expect(operationTools().map((t) => t.name)).toEqual(operationList.map((op) => toolNameOf(op.command)))
    expect(operationTools().map((t) => t.name)).toContain('virtual_accounts_create')
  })

  for (const op of operationList) {
    it(`${op.command}: every flag and argument is a property with its rule, or is named as no tool input`, () => {
      const tool = operationTool(op)
      const {properties} = tool.inputSchema
      const command = manifest.commands[op.command]
      expect(command, `${op.command} in the manifest`).toBeDefined()
      // the command's own flags (the global ones are pay mcp's: profile, base URL, …; output flags have no use)
      const own = Object.values(command.flags).filter((f) => f.helpGroup !== 'GLOBAL')
      for (const flag of own) {
        if (notToolInputs.has(flag.name)) {
          expect(properties[propertyOf(flag.name)], `${flag.name} is named as no tool input`).toBeUndefined()
          continue
        }
        const property = properties[propertyOf(flag.name)]
        expect(property, `--${flag.name} of ${op.command} is a property of ${tool.name}`).toBeDefined()
        if (flag.type === 'boolean') expect(property.type).toBe('boolean')
        else expect(['string', 'integer', 'object']).toContain(property.type)
        if (flag.options) expect(property.enum).toEqual(flag.options)
        if (flag.default !== undefined) expect(property.default).toEqual(flag.default)
      }
      for (const arg of Object.values(command.args)) expect(properties[propertyOf(arg.name)], `argument ${arg.name}`).toMatchObject({type: 'string'})
      // nothing more than the command has
      const names = new Set([...own.map((f) => propertyOf(f.name)), ...Object.keys(command.args).map(propertyOf)])
      for (const name of Object.keys(properties)) expect(names.has(name), `${name} is a flag or argument of ${op.command}`).toBe(true)

      // each field's rule (from the endpoint's zod schema) in its description, in the tool's names; required as the rule says
      const rename = renamer(tool.inputs)
      for (const field of op.fields) {
        const property = properties[propertyOf(flagName(field) ?? field.arg!)]
        const rule = derived.rules[op.command]?.[field.key] ?? ''
        for (const part of rule.split('; ').filter(Boolean)) expect(property.description, `${op.command} ${field.key}`).toContain(rename(part))
        expect(tool.inputSchema.required?.includes(propertyOf(flagName(field) ?? field.arg!)) ?? false, `${field.key} required`).toBe(rule.startsWith('required'))
        expect(property.description).not.toMatch(/--[a-z]/)
      }
      expect(tool.inputSchema.additionalProperties).toBe(false)
    })
  }

  it('integer flags keep their bounds; money tools are the idempotent endpoints and take dry_run, never idempotency_key or force_new', () => {
    const create = operationTool(operations['collections:create'])
    expect(create.money).toBe(true)
    expect(create.inputSchema.properties.wait_timeout).toMatchObject({type: 'integer', minimum: 1, maximum: 86_400})
    expect(create.inputSchema.properties.wait_timeout.description).toContain('120 when not given')
    expect(create.inputSchema.properties.dry_run).toMatchObject({type: 'boolean'})
    expect(create.inputSchema.properties.data).toMatchObject({type: 'object'})
    for (const tool of operationTools()) {
      // an agent's retry must never become a second request: the journal keys each call, no key or force is an input
      expect(tool.inputSchema.properties.idempotency_key, tool.name).toBeUndefined()
      expect(tool.inputSchema.properties.force_new, tool.name).toBeUndefined()
      if (tool.money) expect(tool.inputSchema.properties.dry_run, tool.name).toBeDefined()
      expect(tool.annotations.readOnlyHint).toBe(!tool.money)
    }
    const readOnly = operationTools().filter((t) => !t.money).map((t) => t.name)
    expect(readOnly).toEqual(expect.arrayContaining(['transactions_verify', 'balance', 'account', 'verifications_msisdn', 'collections_get']))
    expect(operationTools().filter((t) => t.money).map((t) => t.name).sort()).toEqual(
      ['checkout_create', 'collections_create', 'debits_create', 'mandates_cancel', 'mandates_create', 'payouts_create', 'subscriptions_create', 'virtual_accounts_create'].sort(),
    )
  })

  it("each spec example becomes arguments the tool takes (the example's flags, less the output ones)", () => {
    for (const op of operationList) {
      const tool = operationTool(op)
      expect(tool.inputSchema.examples).toHaveLength(op.examples.length)
      for (const example of tool.inputSchema.examples ?? []) expect(valuesOf(tool, example).problems, `${tool.name} ${JSON.stringify(example)}`).toEqual([])
    }
    expect(operationTool(operations['collections:create']).inputSchema.examples?.[0]).toEqual({amount: '1500.00', currency: 'KES', reference: 'order-42', mobile: '254712345670', provider: 'mpesa', wait: true})
    // a lookup's reference given as the argument (`mandates get gym-jane-2026`): the tool's one reference input
    expect(operationTool(operations['mandates:get']).inputSchema.examples?.[0]).toEqual({reference: 'gym-jane-2026'})
    expect(operationTool(operations['collections:get']).inputSchema.examples?.[0]).toEqual({id: 'CL_8K2M4Q7R1T'})
    expect(operationTool(operations['payouts:create']).inputSchema.examples?.[1]).toMatchObject({account_name: 'Jane Wanjiku', rail: 'bank_transfer'})
  })
})

describe('arguments of a tool call', () => {
  const tool = operationTool(operations['collections:create'])

  it('become the values the command takes, by flag name', () => {
    const {values, problems} = valuesOf(tool, {amount: '10.00', reference: 'r-1', account_name: 'A', wait_timeout: 30, dry_run: true, data: {x: 1}})
    expect(problems).toEqual([])
    expect(values).toEqual({amount: '10.00', reference: 'r-1', 'account-name': 'A', 'wait-timeout': 30, 'dry-run': true, data: '{"x":1}'})
    expect(commandLineOf(tool, values)).toEqual(['collections', 'create', '--amount', '10.00', '--reference', 'r-1', '--account-name', 'A', '--wait-timeout', '30', '--dry-run', '--data', '{"x":1}'])
  })

  it('are refused by shape before anything else: unknown names, numbers for amounts, bounds, non-objects', () => {
    expect(valuesOf(tool, {colour: 'red'}).problems[0]).toMatchObject({field: 'colour', rule: expect.stringContaining('is not an input of collections_create')})
    expect(valuesOf(tool, {amount: 10}).problems).toEqual([{field: 'amount', rule: expect.stringMatching(/^must be a string/)}])
    expect(valuesOf(tool, {wait_timeout: 0}).problems).toEqual([{field: 'wait_timeout', rule: 'must be at least 1'}])
    expect(valuesOf(tool, {wait: 'yes'}).problems).toEqual([{field: 'wait', rule: 'must be true or false'}])
    expect(valuesOf(tool, {data: [1]}).problems).toEqual([{field: 'data', rule: 'must be a JSON object'}])
    expect(valuesOf(tool, [1]).problems).toEqual([{field: '(arguments)', rule: 'must be a JSON object'}])
    expect(valuesOf(tool, {amount: null}).values).toEqual({})
  })

  it('messages of the command line read in the tool’s names', () => {
    const rename = renamer(operationTool(operations['debits:create']).inputs)
    expect(rename('MANDATE_ID is required')).toBe('mandate_id is required')
    expect(rename('--mobile is required when --rail is mobile_money')).toBe('--mobile is required when --rail is mobile_money')
    expect(renamer(tool.inputs)('--mobile is required when --rail is mobile_money')).toBe('mobile is required when rail is mobile_money')
  })
})

describe('the interface summary', () => {
  it('lists every tool with its endpoint and inputs', () => {
    const text = interfaceSummary(operationTools())
    expect(text).toContain('## collections_create (money)')
    expect(text).toContain('`POST /v1/collections` (idempotent: Idempotency-Key)')
    expect(text).toContain('- `amount` (string, required): ')
    expect(text).toContain('## balance\n')
    // the flags a tool has no use for, each with why
    expect(notToolInputs.get('force-new')).toMatch(/never become a second request/)
    expect(notToolInputs.get('from-file')).toMatch(/bulk runs/)
  })
})
