/**
 * Every validation rule of the resource commands, table-driven: the command exits 2, names the flag and the
 * rule (every problem at once), and sends nothing: the sandbox's request log stays empty (not even a token).
 * The table runs in-process; the exit status and the {"error":…} envelope of the built CLI are checked as a process.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {CliResult} from '../helpers/cli.js'
import {json} from '../helpers/cli.js'
import {useSandbox} from '../helpers/command-harness.js'

const h = useSandbox()

const long = (n: number) => 'x'.repeat(n)
const MOBILE = ['--mobile', '254712345671', '--provider', 'mpesa']
const COL = ['collections', 'create', '--amount', '10', '--currency', 'KES', '--reference', 'bad-1']
const CO = ['checkout', 'create', '--currency', 'KES', '--reference', 'bad-co', '--success-url', 'https://shop.example/ok', '--cancel-url', 'https://shop.example/no']
const PO = ['payouts', 'create', '--amount', '10', '--currency', 'KES', '--reference', 'bad-po']
const MD = ['mandates', 'create', ...MOBILE, '--currency', 'KES', '--amount', '10', '--frequency', 'MONTHLY', '--starts-at', '2026-12-01T09:00:00Z', '--reference', 'bad-md']
const SUB = ['subscriptions', 'create', '--plan', 'PLN_ACMEGOLD', '--reference', 'bad-sub', '--customer-name', 'Jane', '--customer-email', 'jane@example.com', ...MOBILE]

const AMOUNT_RULE = 'must be a positive decimal string with at most 2 decimal places'
const PATH_DOT_RULE = 'must not be "." or ".." (a URL reads it as a step in the path)'
const DOT_RULE = 'must not be "." or ".." (a URL reads it as a step in the path, so no lookup by reference could find it)'
const CURRENCY_RULE = 'must be a 3-letter currency code'

/**
 * [what, args, every "flag rule" expected on stderr]. Since every problem is listed at once, one row may break
 * several rules; together the rows cover each rule of issue 4 (required, decimal amount, currency, email, URI,
 * date-time, the bounds of Limits §11, enum values, the cross-field rules) for every command.
 */
const CASES: [string, string[], string[]][] = [
  ['collections: every missing flag at once', ['collections', 'create'], ['--amount is required', '--currency is required', '--reference is required', '--mobile is required when --rail is mobile_money', '--provider is required when --rail is mobile_money']],
  ['collections: exponent amount, 4-letter currency, long reference, unknown rail, bad wallet, long provider', ['collections', 'create', '--amount', '1e3', '--currency', 'KESH', '--reference', long(256), '--rail', 'paypal', '--mobile', '+2547', '--provider', long(65)], [`--amount ${AMOUNT_RULE}`, `--currency ${CURRENCY_RULE}`, '--reference must be at most 255 characters', '--rail must be mobile_money or bank_transfer', '--mobile must be 10 to 15 digits', '--provider must be at most 64 characters']],
  ['collections: 3 decimals, digit in currency, account name on mobile money', ['collections', 'create', '--amount', '10.005', '--currency', 'K1S', '--reference', 'r', ...MOBILE, '--account-name', 'Acme'], [`--amount ${AMOUNT_RULE}`, `--currency ${CURRENCY_RULE}`, '--account-name is only allowed when --rail is bank_transfer']],
  ['an empty idempotency key', [...COL, ...MOBILE, '--idempotency-key', ''], ['--idempotency-key must not be empty']],
  ['--data that is not JSON', [...COL, ...MOBILE, '--data', '{nope'], ['--data must be valid JSON']],
  ['-F without =', [...COL, ...MOBILE, '-F', 'novalue'], ['-F "novalue" must be key=value or key:=json']],
  ['collections get: ID and --reference', ['collections', 'get', 'CL_1', '--reference', 'r'], ['ID cannot be combined with --reference']],
  ['collections get: neither', ['collections', 'get'], ['ID (or --reference) is required']],
  ['checkout: --amount with open mode, unknown rail, relative URLs', ['checkout', 'create', '--amount-mode', 'open', '--amount', '5', '--currency', 'KES', '--reference', 'r', '--rail', 'crypto', '--success-url', '/ok', '--cancel-url', 'shop.example'], ['--amount must be omitted when --amount-mode is open', '--rail must be mobile_money, card or bank_transfer', '--success-url must be an absolute http(s) URL', '--cancel-url must be an absolute http(s) URL']],
  ['checkout: fixed mode without amount, mobile money rail without --mobile', [...CO, '--rail', 'mobile_money'], ['--amount is required when --amount-mode is fixed', '--mobile is required when --rail is mobile_money']],
  ['checkout: unknown amount mode, negative amount', [...CO, '--amount-mode', 'sometimes', '--amount=-5'], ['--amount-mode must be fixed or open', `--amount ${AMOUNT_RULE}`]],
  ['checkout get: no ID', ['checkout', 'get'], ['ID is required']],
  ['transactions verify: no reference', ['transactions', 'verify'], ['REFERENCE is required']],
  ['payouts: bank rail without its destination, zero amount', ['payouts', 'create', '--amount', '0', '--currency', 'KES', '--reference', 'r', '--rail', 'bank_transfer'], [`--amount ${AMOUNT_RULE}`, '--bank-code is required when --rail is bank_transfer', '--account-number is required when --rail is bank_transfer']],
  ['payouts: wallet rail without its destination', PO, ['--mobile is required when --rail is mobile_money', '--provider is required when --rail is mobile_money']],
  ['payouts: bank code over 32, account number over 64', [...PO, '--rail', 'bank_transfer', '--bank-code', long(33), '--account-number', long(65)], ['--bank-code must be at most 32 characters', '--account-number must be at most 64 characters']],
  ['payouts get: no reference', ['payouts', 'get'], ['REFERENCE is required']],
  ['msisdn: 9 digits', ['verifications', 'msisdn', '--mobile', '123456789'], ['--mobile must be 10 to 15 digits']],
  ['msisdn: 16 digits, provider over 64', ['verifications', 'msisdn', '--mobile', '1234567890123456', '--provider', long(65)], ['--mobile must be 10 to 15 digits', '--provider must be at most 64 characters']],
  ['bank-account: nothing given', ['verifications', 'bank-account'], ['--bank-code is required', '--account-number is required']],
  ['bank-account: bounds', ['verifications', 'bank-account', '--bank-code', long(33), '--account-number', long(65)], ['--bank-code must be at most 32 characters', '--account-number must be at most 64 characters']],
  ['mandates: bad frequency, date without time, --plan without the customer', ['mandates', 'create', ...MOBILE, '--currency', 'KES', '--amount', '10', '--frequency', 'YEARLY', '--starts-at', '2026-12-01', '--reference', 'r', '--plan', 'PLN_ACMEGOLD'], ['--frequency must be DAILY, WEEKLY or MONTHLY', '--starts-at must be an ISO 8601 date-time', '--customer-name is required when --plan is set', '--customer-email is required when --plan is set']],
  ['mandates: bad email', [...MD, '--plan', 'PLN_ACMEGOLD', '--customer-name', 'Jane', '--customer-email', 'jane-at-example'], ['--customer-email must be an email address']],
  ['mandates get: no reference', ['mandates', 'get'], ['--reference is required']],
  ['mandates cancel: nothing given', ['mandates', 'cancel'], ['MANDATE_ID is required', '--mobile is required', '--reason is required']],
  // "." and ".." survive URI encoding and a URL resolves them: `mandates cancel ..` would POST to /v1/cancel
  ['mandates cancel: .. as the id', ['mandates', 'cancel', '..', '--mobile', '254712345671', '--reason', 'r'], ['MANDATE_ID must not be "." or ".." (a URL reads it as a step in the path)']],
  ['collections get: . as the id', ['collections', 'get', '.'], ['ID must not be "." or ".." (a URL reads it as a step in the path)']],
  // a reference of "." or ".." could be created (a body field) but never looked up: the verify and payout lookups put it in the path
  ['collections create: . as the reference', ['collections', 'create', '--amount', '10', '--currency', 'KES', '--reference', '.', ...MOBILE], [`--reference ${DOT_RULE}`]],
  ['payouts create: .. as the reference', [...PO.slice(0, -1), '..', ...MOBILE], [`--reference ${DOT_RULE}`]],
  ['checkout create: .. as the reference', [...CO.slice(0, 5), '..', ...CO.slice(6), '--amount', '10'], [`--reference ${DOT_RULE}`]],
  ['debits create: . as the reference', ['debits', 'create', 'MD_1', '--amount', '10', '--currency', 'KES', '--reference', '.', '--provider', 'mpesa'], [`--reference ${DOT_RULE}`]],
  ['subscriptions create: .. as the reference', [...SUB.slice(0, 5), '..', ...SUB.slice(6)], [`--reference ${DOT_RULE}`]],
  ['mandates create: . as the reference', [...MD.slice(0, -1), '.'], [`--reference ${DOT_RULE}`]],
  ['payouts get: .. as the reference', ['payouts', 'get', '..'], [`REFERENCE ${PATH_DOT_RULE}`]],
  ['transactions verify: . as the reference', ['transactions', 'verify', '.'], [`REFERENCE ${PATH_DOT_RULE}`]],
  ['collections get --reference ..', ['collections', 'get', '--reference', '..'], [`--reference ${DOT_RULE}`]],
  ['debits status --reference .', ['debits', 'status', '--mandate', 'MD_1', '--reference', '.'], [`--reference ${DOT_RULE}`]],
  ['debits: no mandate, separator in amount, currency not 3, reference over 255, provider over 64', ['debits', 'create', '--amount', '1,000', '--currency', 'KESH', '--reference', long(256), '--provider', long(65)], ['MANDATE_ID is required', `--amount ${AMOUNT_RULE}`, '--currency must be exactly 3 letters, such as KES', '--reference must be at most 255 characters', '--provider must be at most 64 characters']],
  ['debits status: nothing given', ['debits', 'status'], ['--mandate is required', '--reference is required']],
  ['subscriptions: nothing given', ['subscriptions', 'create'], ['--plan is required', '--reference is required', '--customer-name is required', '--customer-email is required', '--mobile is required', '--provider is required']],
  ['subscriptions: bad email and wallet', [...SUB.slice(0, 8), '--customer-email', 'nope', '--mobile', '0712', '--provider', 'mpesa'], ['--customer-email must be an email address', '--mobile must be 10 to 15 digits']],
  ['subscriptions get: no reference', ['subscriptions', 'get'], ['--reference is required']],
  ['customers get: no id', ['customers', 'get'], ['ID is required']],
  ['customers collections: per-page 0, --all with --page', ['customers', 'collections', 'MC_ACME0001', '--per-page', '0', '--all', '--page', '2'], ['--per-page must be a positive whole number', '--page cannot be combined with --all']],
  ['customers collections: per-page over 100, page not a number', ['customers', 'collections', 'MC_ACME0001', '--per-page', '101', '--page', 'two'], ['--per-page must be at most 100', '--page must be a positive whole number']],
  ['virtual-accounts create: neither', ['virtual-accounts', 'create'], ['--customer (or --merchant) is required']],
  ['virtual-accounts get: both', ['virtual-accounts', 'get', '--merchant', '--customer', 'MC_ACME0001'], ['--customer cannot be combined with --merchant']],
]

const results = new Map<string, CliResult>()

/** Runs the cases in-process (the rules are logic); the --json envelope below is checked on the built CLI. */
beforeAll(async () => {
  const queue = [...CASES]
  await Promise.all(
    Array.from({length: 4}, async () => {
      for (let c = queue.shift(); c; c = queue.shift()) results.set(c[0], await h.run(c[1]))
    }),
  )
}, 240_000)

describe('bad input: exit 2, the flag and the rule named, nothing sent', () => {
  it.each(CASES)('%s', async (name, _args, expected) => {
    const r = results.get(name)!
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(2)
    for (const line of expected) expect(r.stderr).toContain(`error: ${line}`)
    expect(r.stdout).toBe('')
  })

  it('--json puts every problem in the error envelope on stdout', async () => {
    const r = await h.pay(['collections', 'create', '--currency', 'kesh', '--json'])
    expect(r.code).toBe(2)
    const body = json(r)
    expect(body.error.code).toBe('invalid_input')
    expect(body.error.problems).toEqual(
      expect.arrayContaining([
        {flag: '--amount', rule: 'is required'},
        {flag: '--currency', rule: expect.stringContaining(CURRENCY_RULE)},
        {flag: '--reference', rule: 'is required'},
        {flag: '--mobile', rule: 'is required when --rail is mobile_money'},
      ]),
    )
  })

  afterAll(() => {
    // Not one request reached the sandbox: validation happens before the token is even fetched.
    expect(h.sb.requests).toEqual([])
  })
})
