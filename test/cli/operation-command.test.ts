/**
 * What a newcomer types first: lookups by merchant reference as an argument or as --reference (one rule, derived
 * from the operation specs by referenceLookup), the exact command a --wait timeout leaves to run later, and a
 * profile named by --profile or PAY_PROFILE that does not exist. In-process against the sandbox.
 */
import {describe, expect, it} from 'vitest'
import {LOOKUP_REFERENCE, referenceLookup} from '../../src/api/operation-names.js'
import {operationList} from '../../src/api/operations.js'
import {operationInputs} from '../../src/cli/operation-command.js'
import {reportWait} from '../../src/operation/wait.js'
import {json} from '../helpers/cli.js'
import {memoryOutput} from '../helpers/in-process.js'
import {ok, useSandbox} from '../helpers/command-harness.js'

const h = useSandbox({settleMs: 100})

describe('lookups by merchant reference', () => {
  it('every lookup by merchant reference takes it as the argument REFERENCE and as --reference/-r', () => {
    const lookups = operationList.filter((op) => referenceLookup(op) !== undefined).map((op) => op.command)
    expect(lookups.sort()).toEqual(['debits:status', 'mandates:get', 'payouts:get', 'subscriptions:get', 'transactions:verify'])
    for (const op of operationList) {
      const {flags, args} = operationInputs(op)
      if (!referenceLookup(op)) continue
      expect(Object.keys(args), op.command).toEqual([LOOKUP_REFERENCE.name])
      expect(flags[LOOKUP_REFERENCE.name], op.command).toMatchObject({char: 'r'})
    }
    // an operation with an id argument keeps it as its positional; --reference selects the other endpoint there
    expect(Object.keys(operationInputs(operationList.find((o) => o.command === 'collections:get')!).args)).toEqual(['id'])
  })

  it('mandates get md-1, subscriptions get REF, payouts get --reference REF: the same request either way', async () => {
    // a number ending in 8: the mandate waits for approval, so both lookups see the same state
    ok(await h.run(['mandates', 'create', '--mobile', '254712340038', '--provider', 'mpesa', '--currency', 'KES', '--amount', '10', '--frequency', 'MONTHLY', '--starts-at', '2026-12-01T09:00:00Z', '--reference', 'md-1']))
    ok(await h.run(['payouts', 'create', '--amount', '5', '--currency', 'KES', '--reference', 'po-lookup-1', '--mobile', '254712340038', '--provider', 'mpesa']))
    const [a, b] = await Promise.all([h.run(['mandates', 'get', 'md-1', '--json']), h.run(['mandates', 'get', '--reference', 'md-1', '--json'])])
    expect(json(ok(a))).toEqual(json(ok(b)))
    const [c, d] = await Promise.all([h.run(['payouts', 'get', 'po-lookup-1', '--json']), h.run(['payouts', 'get', '-r', 'po-lookup-1', '--json'])])
    expect(json(ok(c))).toEqual(json(ok(d)))
    const sub = await h.run(['subscriptions', 'get', 'sub-none'])
    expect(sub.code).toBe(4) // asked for, not "unknown command"
    expect(sub.stderr).toMatch(/sub-none not found/)
  })

  it('both ways with different values: exit 2 naming both, nothing sent', async () => {
    const before = h.requests().length
    const r = await h.run(['mandates', 'get', 'md-1', '--reference', 'md-2'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/--reference and the argument REFERENCE name different values/)
    expect(h.requests().length).toBe(before)
    ok(await h.run(['payouts', 'get', 'po-lookup-1', '--reference', 'po-lookup-1']))
  })
})

describe('a --wait timeout names the command to run later', () => {
  it('the command: positional where the spec says, flags otherwise, quoted, and the profile and sub-account given', () => {
    type Poll = Parameters<typeof reportWait>[1]['poll']
    /** The command a wait that timed out polling `poll` says to run later (undefined: none named). */
    const laterCommand = (poll: Poll, flags?: Parameters<typeof reportWait>[2]) => {
      const io = memoryOutput(false)
      expect(reportWait(io.out, {poll, res: {} as Parameters<typeof reportWait>[1]['res'], outcome: 'timeout', label: 'it', elapsedSeconds: 1, timeoutSec: 1}, flags)).toBe(9)
      return /next: run `(.+)` later/.exec(io.stderr())?.[1]
    }
    expect(laterCommand({id: 'collections.get', input: {path: {id: 'CL_1'}}})).toBe('pay collections get --wait CL_1')
    expect(laterCommand({id: 'collections.getByReference', input: {query: {merchant_reference: 'order 42'}}})).toBe("pay collections get --reference 'order 42' --wait")
    expect(laterCommand({id: 'payouts.get', input: {path: {merchant_reference: '-odd'}}}, {profile: 'live'})).toBe('pay payouts get --profile live --wait -- -odd')
    expect(laterCommand({id: 'debits.status', input: {query: {mandate_id: 'MD_1', merchant_reference: 'd-1'}}}, {'account-ref': 'shop 2'})).toBe("pay debits status --mandate MD_1 --reference d-1 --account-ref 'shop 2' --wait")
    expect(laterCommand({id: 'metadata.banks', input: {}})).toBeUndefined() // no --wait there
    expect(laterCommand({id: 'collections.get', input: {}})).toBeUndefined()
  })

  it('a mandate that waits for approval (last digit 8): exit 9 and the exact get command', async () => {
    const r = await h.run(['mandates', 'create', '--mobile', '254712340018', '--provider', 'mpesa', '--currency', 'KES', '--amount', '10', '--frequency', 'MONTHLY', '--starts-at', '2026-12-01T09:00:00Z', '--reference', 'md-waits', '--wait', '--wait-timeout', '1'])
    expect(r.code).toBe(9)
    expect(r.stderr).toContain('next: run `pay mandates get --reference md-waits --wait` later, or raise --wait-timeout')
  })
})

describe('a profile that does not exist', () => {
  it('--profile typo and PAY_PROFILE=typo: "no profile named typo" with the profiles there are, exit 2', async () => {
    const env = {PAY_BASE_URL: undefined, PAY_CLIENT_ID: undefined, PAY_CLIENT_SECRET: undefined}
    ok(await h.pay(['profiles', 'add', 'shop', '--base-url', h.sb.url, '--client-id', 'x', '--client-secret', 'y'], env))
    for (const [args, extra] of [[['balance', '--profile', 'typo'], {}], [['balance'], {PAY_PROFILE: 'typo'}]] as const) {
      const r = await h.run([...args], {...env, ...extra})
      expect(r.code, args.join(' ')).toBe(2)
      expect(r.stderr).toMatch(/no profile named "typo" \((--profile|PAY_PROFILE)\)/)
      expect(r.stderr).toMatch(/the profiles are: shop/)
      expect(r.stderr).not.toMatch(/base-url/)
    }
    // everything from the environment: the name is not needed, and not in the way
    ok(await h.run(['balance', '--profile', 'typo']))
  })
})
