/**
 * The direct path's parser (src/cli/direct-argv.ts), in-process, against the build's table (dist/direct-run.json):
 * for every command line it accepts, it must give exactly the flags and arguments oclif's own parser gives for the
 * command's own definitions; everything else it must hand to oclif (undefined). And the table must cover the
 * operation commands, so that the direct path cannot quietly stop being used.
 */
import type {Config} from '@oclif/core'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {planDirect} from '../../src/cli/direct-argv.js'
import {ROOT} from '../helpers/cli.js'

/** dist/direct-run.json, as planDirect reads it. */
type DirectTable = Parameters<typeof planDirect>[1]
const table = JSON.parse(readFileSync(join(ROOT, 'dist', 'direct-run.json'), 'utf8')) as DirectTable
/** The balance command's entry (each command is kept as its JSON text) with some flags added. */
const balanceWith = (flags: object): DirectTable => {
  const balance = JSON.parse(table.commands.balance) as {flags: object}
  return {...table, commands: {balance: JSON.stringify({...balance, flags: {...balance.flags, ...flags}})}}
}
let config: Config
let oclif: typeof import('@oclif/core')

// (the worker process serves other test files after this one: globalThis.oclif is put back as it was)
const oclifGlobal = (globalThis as {oclif?: object}).oclif
afterAll(() => {
  ;(globalThis as {oclif?: object}).oclif = oclifGlobal
})

beforeAll(async () => {
  // the built commands through the build's oclif, as bin/run.js runs them when it does not take the direct path
  ;(globalThis as {oclif?: object}).oclif = {...oclifGlobal, enableAutoTranspile: false}
  oclif = (await import(pathToFileURL(join(ROOT, 'dist', 'vendor', 'oclif.js')).href)) as typeof import('@oclif/core')
  config = await oclif.Config.load(join(ROOT, 'bin', 'run.js'))
}, 60_000)

/** What oclif parses for argv (after the command words) with the command's own flags and arguments. */
async function oclifParse(id: string, argv: string[]): Promise<{flags: Record<string, unknown>; args: Record<string, unknown>}> {
  const Cmd = await config.findCommand(id)!.load()
  const {flags, args} = await oclif.Parser.parse(argv, {flags: {...Cmd.baseFlags, ...Cmd.flags}, baseFlags: Cmd.baseFlags, args: Cmd.args ?? {}, strict: true})
  return {flags, args}
}

const create = ['collections', 'create']
const accepted: string[][] = [
  ['balance'],
  ['balance', '--json'],
  ['balance', '--currency', 'KES', '--json', '--debug'],
  ['balance', '--currency=KES'],
  ['balance', '-p', 'work', '--retries', '0', '--timeout=600'],
  ['balance', '-pwork'],
  ['balance', '-p=work'],
  [...create, '--amount', '10.00', '--currency', 'KES', '--mobile', '254700000001', '--provider', 'mpesa', '-r', 'ref-1'],
  [...create, '--amount=10.00', '--reference=a=b', '--wait', '--wait-timeout', '5', '--dry-run', '--idempotency-key', 'k'],
  [...create, '-F', 'metadata.a=1', 'metadata.b=2', '--amount', '1', '-F', 'c:=3'],
  [...create, '--data', '-'],
  [...create, '--amount', ''],
  ['collections', 'get', 'COL_1', '--json'],
  ['collections', 'get', '--json', 'COL_1'],
]
const declined: string[][] = [
  [],
  ['--json', 'balance'],
  ['balance', '--help'],
  ['balance', '-h'],
  ['balance', '--version'],
  ['balance', '--'],
  ['balance', '--bogus'],
  ['balance', '-x'],
  ['balance', '--json=true'],
  ['balance', '--currency'],
  ['balance', '--currency', '--json'],
  ['balance', '--currency', '-5'],
  ['balance', '--retries', '-0'],
  ['balance', '--currency', 'KES', '--currency', 'UGX'],
  ['balance', '--retries', '11'],
  ['balance', '--retries', 'many'],
  ['balance', '--timeout', '0'],
  ['balance', 'extra'],
  ['balance', '-5'],
  ['collections', 'get'],
  ['collections', 'get', 'A', 'B'],
  ['collections'],
  ['metadata', 'mobile-providers'],
  ['profiles', 'list'],
  ['login'],
  ['nosuchcommand', '--json'],
]

describe('the direct path parses as oclif does', () => {
  it.each(accepted.map((argv) => [argv.join(' '), argv]))('pay %s', async (_, argv) => {
    const plan = planDirect(argv, table, {})
    expect(plan, 'the direct path should take it').toBeDefined()
    const rest = argv.slice(plan!.id.split(':').length)
    expect(plan!.argv).toEqual(rest)
    expect({flags: plan!.flags, args: plan!.args}).toEqual(await oclifParse(plan!.id, rest))
  })

  it.each(declined.map((argv) => [argv.join(' ') || '(nothing)', argv]))('pay %s goes to oclif', (_, argv) => {
    expect(planDirect(argv, table, {})).toBeUndefined()
  })

  it('a flag given through its environment variable goes to oclif', () => {
    const withEnv = balanceWith({quiet: {type: 'boolean', env: 'PAY_QUIET'}})
    expect(planDirect(['balance'], withEnv, {})).toBeDefined()
    expect(planDirect(['balance'], withEnv, {PAY_QUIET: '1'})).toBeUndefined()
  })

  it('a value outside a flag\'s options goes to oclif', () => {
    const withOptions = balanceWith({output: {type: 'option', char: 'o', options: ['json', 'table']}})
    expect(planDirect(['balance', '-o', 'json'], withOptions, {})?.flags.output).toBe('json')
    expect(planDirect(['balance', '--output', 'yaml'], withOptions, {})).toBeUndefined()
  })
})

describe('flag kinds the commands may gain (global output flags) parse as oclif parses them', () => {
  // a command with such flags, described for the direct path and defined for oclif alike
  const table2 = (): DirectTable => ({
    ...table,
    commands: {
      balance: JSON.stringify({
        op: 'balance',
        args: [],
        flags: {
          color: {type: 'boolean', allowNo: true},
          output: {type: 'option', char: 'o', options: ['json', 'table']},
          jq: {type: 'option', exclusive: ['output']},
          fields: {type: 'option', dependsOn: ['output']},
        },
      }),
    },
  })
  const oclifFlags = () => ({
    color: oclif.Flags.boolean({allowNo: true}),
    output: oclif.Flags.string({char: 'o', options: ['json', 'table']}),
    jq: oclif.Flags.string({exclusive: ['output']}),
    fields: oclif.Flags.string({dependsOn: ['output']}),
  })
  // (oclif's Parser.parse checks exclusive and dependsOn too)
  const parse = (argv: string[]) => oclif.Parser.parse(argv, {flags: oclifFlags(), args: {}, strict: true})

  it.each([[['--color']], [['--no-color']], [['--color', '--no-color']], [['--no-color', '--color']], [['-o', 'json', '--fields', 'a,b']], [['--jq', '.data']]])('pay balance %j', async (argv) => {
    const plan = planDirect(['balance', ...argv], table2(), {})
    expect(plan).toBeDefined()
    expect(plan!.flags).toEqual((await parse(argv)).flags)
  })

  it.each([[['--no-output']], [['--jq', '.x', '-o', 'json']], [['--fields', 'a']], [['-o', 'yaml']]])('pay balance %j goes to oclif, which rejects it', async (argv) => {
    expect(planDirect(['balance', ...argv], table2(), {})).toBeUndefined()
    await expect(parse(argv)).rejects.toThrow()
  })
})

describe('the direct-run table', () => {
  it('keeps each command as its JSON text, which only a run of that command reads', () => {
    const others = Object.fromEntries(Object.keys(table.commands).map((id) => [id, id === 'balance' ? table.commands.balance : '{not json']))
    expect(planDirect(['balance', '--json'], {...table, commands: others}, {})?.flags.json).toBe(true)
    expect(() => planDirect(['collections', 'create'], {...table, commands: others}, {})).toThrow(SyntaxError)
  })

  it('covers every operation command (aliases go to oclif)', async () => {
    const operationIds = []
    for (const id of config.commandIDs) {
      const cmd = config.findCommand(id)!
      if ((cmd.aliases ?? []).includes(id)) continue
      const Cmd = (await cmd.load()) as {operation?: unknown}
      if (Cmd.operation) operationIds.push(id)
    }
    expect(operationIds).toContain('balance')
    expect(operationIds).toContain('collections:create')
    expect(Object.keys(table.commands).sort()).toEqual(operationIds.sort())
  })

  it("declines oclif's help and version flags as package.json names them (additionalHelpFlags, additionalVersionFlags)", () => {
    const {oclif: settings} = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {oclif: {additionalHelpFlags?: string[]; additionalVersionFlags?: string[]}}
    expect(table.helpFlags).toEqual(['--help', ...(settings.additionalHelpFlags ?? [])])
    expect(table.versionFlags).toEqual(['--version', ...(settings.additionalVersionFlags ?? [])])
    // a short flag of the command is declined once package.json makes it a help or version flag
    expect(planDirect(['balance', '-p', 'work', '-q'], table)).toBeDefined()
    expect(planDirect(['balance', '-p', 'work'], {...table, helpFlags: [...table.helpFlags, '-p']})).toBeUndefined()
    expect(planDirect(['balance', '-q'], {...table, versionFlags: [...table.versionFlags, '-q']})).toBeUndefined()
  })
})
