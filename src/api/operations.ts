/**
 * One declarative spec per operation of the CLI, beside the endpoint table: which endpoint it calls, for each
 * input its request field, flag (or argument), short flag and help, how to ask for it, and for the operation its
 * view, what --wait polls and which states end the wait, and its examples.
 *
 * Everything else is derived: the method and path line of the description and whether the endpoint is
 * idempotent come from the endpoint table; each flag's rule text comes from the zod schema of the request
 * (src/api/operation-rules.ts, stored at build time in operations.generated.ts so that loading a command
 * for --help loads no zod). Readers: the resource commands (src/cli/operation-command.ts), runOperation
 * (src/operation/run-operation.ts), the bulk engine's column names and flow inputs (src/operation/operation-input.ts),
 * the README reference and docs/resource-commands.md.
 *
 * Light on purpose: only types are imported.
 */
import type {OperationSpec, WaitSpec} from './operation-types.js'

export type * from './operation-types.js'

/** Terminal states of the spec's State names table. */
// each resource's states (spec: States): what ends a wait, and what is known to be still under way
const TX_STATES = {succeeded: ['succeeded'], failed: ['failed'], pending: ['processing']} as const
const MANDATE_STATES = {succeeded: ['succeeded'], failed: ['cancelled'], pending: ['processing']} as const
const SUBSCRIPTION_STATES = {succeeded: ['active'], failed: ['failed', 'cancelled'], pending: ['pending_approval']} as const

const self = (noun: string, states: {succeeded: readonly string[]; failed: readonly string[]; pending: readonly string[]}, label?: WaitSpec['label']): WaitSpec => ({get: 'self', noun, label, ...states})

const AMOUNT = {key: 'amount', helpValue: 'DECIMAL', help: 'Amount as a decimal string, e.g. 1500.00 (never rounded)'} as const
const CURRENCY = {key: 'currency', helpValue: 'CODE', help: '3-letter currency code, e.g. KES (upper-cased for you)', upper: true, prompt: 'Currency (e.g. KES)'} as const
const reference = (what: string, prompt = 'Merchant reference') =>
  ({key: 'merchant_reference', flag: 'reference', char: 'r', helpValue: 'REF', help: `Your merchant reference for ${what} (sent as merchant_reference)`, prompt}) as const
const MOBILE = {key: 'mobile', helpValue: 'DIGITS', help: 'Mobile money wallet number, no +', prompt: {message: 'Wallet number', rule: true}} as const
const PROVIDER = {key: 'provider', helpValue: 'CODE', help: 'Mobile money provider code (see `pay metadata providers`)', prompt: {message: 'Mobile money provider', choices: 'providers'}} as const
const DESCRIPTION = {key: 'description', help: 'Free text shown with the transaction'} as const
const NOTES = {key: 'notes', help: 'Internal notes'} as const
const byReference = (what: string) => ({key: 'merchant_reference', in: 'query', flag: 'reference', char: 'r', helpValue: 'REF', help: `Merchant reference the ${what} was created with`, prompt: `Merchant reference of the ${what}`}) as const
const ID = (what: string, prefix: string) => ({key: 'id', in: 'path', arg: 'id', help: `${what} id (${prefix}_…)`, prompt: `${what} id (${prefix}_…)`}) as const
const MANDATE_ID = {key: 'mandate_id', in: 'path', arg: 'mandate_id', help: 'Mandate id (MD_…)', prompt: 'Mandate id (MD_…)'} as const

export const operations = {
  'collections:create': {
    command: 'collections:create',
    endpoint: 'collections.create',
    summary: 'Collect money: charge a mobile money wallet or issue a bank account for one order',
    description: `On the mobile money rail (the default) the customer gets a prompt on their phone for --amount; --mobile and --provider are required.
On the bank transfer rail (--rail bank_transfer) the service issues a temporary (dynamic) bank account for this one order: the answer shows the bank, the account number and its expiry to give to the customer.
The collection starts "processing".
On a terminal, missing values are asked for (the provider from the service's list); in scripts or with CI set, every missing flag is listed at once (exit 2).`,
    fields: [
      {...AMOUNT, prompt: 'Amount (e.g. 1500.00)'},
      CURRENCY,
      reference('this collection (order id)', 'Merchant reference (your order id)'),
      {key: 'payment_rail', flag: 'rail', helpValue: 'mobile_money|bank_transfer', help: 'Payment rail (default mobile_money)'},
      MOBILE,
      PROVIDER,
      {key: 'account_name', help: 'Display name of the issued bank account'},
      DESCRIPTION,
    ],
    confirm: {destination: ['body.mobile', 'body.provider', 'body.payment_rail']},
    view: 'collection',
    wait: {get: 'collections.get', path: {id: ['response.id']}, noun: 'collection', ...TX_STATES},
    examples: [
      {description: 'Charge an M-Pesa wallet and wait for the result', command: 'collections create --amount 1500.00 --currency KES --reference order-42 --mobile 254712345670 --provider mpesa --wait'},
      {description: 'Issue a bank account for a bank transfer', command: 'collections create --amount 25000 --currency KES --reference inv-2026-118 --rail bank_transfer --account-name "Acme Stores - INV 118"'},
      {description: 'Preview the request without sending it', command: 'collections create --amount 10 --currency kes --reference test-1 --mobile 254712345670 --provider mpesa --dry-run'},
      {description: 'Script: only the collection id', command: 'collections create --amount 99.50 --currency KES --reference order-43 --mobile 254712345670 --provider mpesa --jq .id'},
    ],
  },
  'collections:get': {
    command: 'collections:get',
    endpoint: 'collections.get',
    alternatives: [{flag: 'reference', endpoint: 'collections.getByReference'}],
    summary: 'Show a collection by id or by merchant reference',
    description: `Shows the state, amount, rail, provider and wallet, and for a bank transfer the account the customer pays into.`,
    fields: [
      {...ID('Collection', 'CL'), help: 'Collection id (CL_…); or use --reference', for: 'collections.get'},
      {key: 'merchant_reference', in: 'query', flag: 'reference', char: 'r', helpValue: 'REF', help: 'Look the collection up by your merchant reference instead of its id', for: 'collections.getByReference'},
    ],
    view: 'collection',
    wait: self('collection', TX_STATES, ['response.id', 'query.merchant_reference']),
    examples: [
      {description: 'By id', command: 'collections get CL_8K2M4Q7R1T'},
      {description: 'By your order reference, waiting for the outcome', command: 'collections get --reference order-42 --wait --wait-timeout 300'},
      {description: 'Script: just the state', command: 'collections get --reference order-42 --jq .status'},
    ],
  },
  'checkout:create': {
    command: 'checkout:create',
    endpoint: 'checkout.create',
    summary: 'Create a hosted checkout session (a browser pay link)',
    description: `Prints the pay link (url) and its expiry; --open also opens it in the browser where one is available.
--amount-mode fixed (default) needs --amount; open lets the customer type the amount on the page (not allowed in Testing mode) and must not have --amount.
--rail locks the session to one rail (mobile_money needs --mobile; card and bank_transfer only when enabled for the merchant); without it the customer picks on the page.`,
    fields: [
      {key: 'amount_mode', helpValue: 'fixed|open', help: 'fixed (default; needs --amount) or open (the customer enters the amount; omit --amount)'},
      {...AMOUNT, prompt: 'Amount (e.g. 2500.00)'},
      CURRENCY,
      reference('this checkout (order id)', 'Merchant reference (your order id)'),
      {key: 'payment_rail', flag: 'rail', helpValue: 'mobile_money|card|bank_transfer', help: 'Lock the session to one rail (default: the customer chooses)'},
      MOBILE,
      {...PROVIDER, prompt: undefined},
      {key: 'success_url', helpValue: 'URL', help: 'Where the customer is sent after paying', prompt: 'Success URL (after paying)'},
      {key: 'cancel_url', helpValue: 'URL', help: 'Where the customer is sent on cancelling', prompt: 'Cancel URL'},
      DESCRIPTION,
    ],
    open: {flag: 'open', field: 'url', help: 'Open the pay link in the browser (when one is available); the link is printed either way'},
    view: 'checkout',
    wait: {get: 'checkout.get', path: {id: ['response.id']}, noun: 'checkout session', ...TX_STATES},
    examples: [
      {description: 'A fixed-amount pay link, opened in the browser', command: 'checkout create --amount 2500.00 --currency KES --reference order-77 --success-url https://shop.example/paid --cancel-url https://shop.example/cart --open'},
      {description: 'The customer enters the amount (live mode only)', command: 'checkout create --amount-mode open --currency KES --reference donation-5 --success-url https://shop.example/thanks --cancel-url https://shop.example'},
      {description: 'Locked to an M-Pesa wallet (the session stays processing until the customer pays on the link)', command: 'checkout create --amount 150 --currency KES --reference order-78 --rail mobile_money --mobile 254712345670 --provider mpesa --success-url https://shop.example/ok --cancel-url https://shop.example/no'},
      {description: 'Script: just the link', command: 'checkout create --amount 10 --currency KES --reference order-79 --success-url https://shop.example/ok --cancel-url https://shop.example/no --jq .url'},
    ],
  },
  'checkout:get': {
    command: 'checkout:get',
    endpoint: 'checkout.get',
    summary: 'Show a checkout session',
    description: `The session's state, pay link and expiry.`,
    fields: [ID('Checkout session', 'CS')],
    view: 'checkout',
    wait: self('checkout session', TX_STATES),
    examples: [
      {description: 'Show a session', command: 'checkout get CS_4T9W2B6N8M'},
      {description: 'Wait up to 10 minutes for the customer to pay', command: 'checkout get CS_4T9W2B6N8M --wait --wait-timeout 600'},
    ],
  },
  'payouts:create': {
    command: 'payouts:create',
    endpoint: 'payouts.create',
    summary: 'Send money from the payout wallet to a mobile money wallet or a bank account',
    description: `The payout is drawn from the payout wallet (see \`pay balance\`); the answer shows the fee and the amount debited.
The spec does not show the payout request fields: the destination flags below are our choice (docs/assumptions.md). Mobile money (default rail) needs --mobile and --provider; --rail bank_transfer needs --bank-code and --account-number (--account-name optional). Anything else the service wants can be sent with --data or -F.
Check the name behind a destination first with \`pay verifications msisdn\` or \`pay verifications bank-account\`.`,
    fields: [
      {...AMOUNT, prompt: 'Amount (e.g. 1200.00)'},
      CURRENCY,
      reference('this payout'),
      {key: 'payment_rail', flag: 'rail', helpValue: 'mobile_money|bank_transfer', help: 'Destination rail (default mobile_money)'},
      {...MOBILE, prompt: {message: 'Destination wallet number', rule: true}},
      PROVIDER,
      {key: 'bank_code', helpValue: 'CODE', help: 'Destination bank code (see `pay metadata banks`)', prompt: {message: 'Destination bank', choices: 'banks'}},
      {key: 'account_number', helpValue: 'NUMBER', help: 'Destination bank account number', prompt: 'Destination account number'},
      {key: 'account_name', help: 'Name on the destination bank account'},
      DESCRIPTION,
    ],
    confirm: {destination: ['body.mobile', 'body.provider', 'body.bank_code', 'body.account_number', 'body.account_name']},
    view: 'payout',
    wait: {get: 'payouts.get', path: {merchant_reference: ['response.merchant_reference', 'body.merchant_reference']}, noun: 'payout', ...TX_STATES},
    examples: [
      {description: 'Pay a supplier on M-Pesa and wait', command: 'payouts create --amount 1200.00 --currency KES --reference supplier-0425 --mobile 254712345670 --provider mpesa --wait'},
      {description: 'Pay into a bank account', command: 'payouts create --amount 50000 --currency KES --reference payroll-2026-04-jane --rail bank_transfer --bank-code 68 --account-number 0123456780 --account-name "Jane Wanjiku"'},
      {description: 'With an extra field the service accepts', command: 'payouts create --amount 300 --currency KES --reference refund-981 --mobile 254712345670 --provider mpesa -F narration="Refund order 981"'},
    ],
  },
  'payouts:get': {
    command: 'payouts:get',
    endpoint: 'payouts.get',
    summary: 'Show a payout by its merchant reference',
    description: `State, amount, fee, amount debited and why it failed (status_detail).`,
    fields: [{key: 'merchant_reference', in: 'path', arg: 'reference', help: 'Your merchant reference of the payout', prompt: 'Merchant reference of the payout'}],
    view: 'payout',
    wait: self('payout', TX_STATES),
    examples: [
      {description: 'Show a payout', command: 'payouts get supplier-0425'},
      {description: 'Wait for the outcome, as JSON', command: 'payouts get payroll-2026-04-jane --wait --json'},
    ],
  },
  'transactions:verify': {
    command: 'transactions:verify',
    endpoint: 'transactions.verify',
    summary: 'Find a collection, payout or checkout by your merchant reference',
    description: `The one place to answer "what happened to order X?".
Shows what kind of transaction it is (collection, payout or checkout session), its state, the amounts (with fee and amount debited for payouts), the rail, the references and, for a collection by bank transfer, the bank account the customer pays into.`,
    fields: [{key: 'merchant_reference', in: 'path', arg: 'reference', help: 'Your merchant reference (merchant_reference) of the transaction', prompt: 'Merchant reference'}],
    view: 'transaction',
    examples: [
      {description: 'What happened to order 42?', command: 'transactions verify order-42'},
      {description: 'Script: kind and state', command: "transactions verify supplier-0425 --jq '.object + \" \" + .status'"},
    ],
  },
  'verifications:msisdn': {
    command: 'verifications:msisdn',
    endpoint: 'verifications.msisdn',
    summary: 'Check the name behind a mobile money number',
    description: `Answers verified with the registered first and last name, or invalid.
Use it before a payout to make sure the money goes to the right person. An upstream identity-check failure answers 502 gateway_error (exit 7): try again later.`,
    fields: [
      {...MOBILE, help: 'Wallet number to check, no +', prompt: {message: 'Wallet number to check', rule: true}},
      {key: 'provider', helpValue: 'CODE', help: 'Mobile money provider code (optional)'},
    ],
    view: 'verification',
    examples: [
      {description: 'Check a wallet', command: 'verifications msisdn --mobile 254712345670'},
      {description: 'With the provider, as JSON', command: 'verifications msisdn --mobile 254712345670 --provider mpesa --jq .status'},
    ],
  },
  'verifications:bank-account': {
    command: 'verifications:bank-account',
    endpoint: 'verifications.bankAccount',
    summary: 'Check the name on a bank account',
    description: `Answers verified with the account holder's first and last name, or invalid.
Bank codes come from \`pay metadata banks\`; on a terminal the bank is offered as a list when --bank-code is missing.`,
    fields: [
      {key: 'bank_code', helpValue: 'CODE', help: 'Bank code (see `pay metadata banks`)', prompt: {message: 'Bank', choices: 'banks'}},
      {key: 'account_number', helpValue: 'NUMBER', help: 'Account number', prompt: 'Account number'},
    ],
    view: 'verification',
    examples: [
      {description: 'Check an Equity Bank account', command: 'verifications bank-account --bank-code 68 --account-number 0123456780'},
      {description: 'Script: the holder name', command: "verifications bank-account --bank-code 01 --account-number 1100223344 --jq '.profile.first_name + \" \" + .profile.last_name'"},
    ],
  },
  'mandates:create': {
    command: 'mandates:create',
    endpoint: 'mandates.create',
    summary: 'Create a direct-debit mandate (step 1 of recurring debits)',
    description: `The customer gets an approval prompt on their phone; the mandate is "processing" until they approve ("succeeded"), after which \`pay debits create\` can charge it. When the number already has an approved mandate, it is reused and answers succeeded at once.
A second create for a number whose first mandate is still awaiting approval answers 409 (exit 5): look the first one up with \`pay mandates get --reference\`.
--plan links the mandate to a subscription plan (then --customer-name and --customer-email are required) and enrols a subscriber, charged the plan amount once on approval: with a live profile that is asked first (--yes). Without a plan no debit happens automatically.`,
    fields: [
      MOBILE,
      PROVIDER,
      CURRENCY,
      {...AMOUNT, prompt: 'Amount per debit (e.g. 1500.00)'},
      {key: 'frequency', helpValue: 'DAILY|WEEKLY|MONTHLY', help: 'How often the mandate may be debited', upper: true, prompt: {message: 'Frequency', choices: ['DAILY', 'WEEKLY', 'MONTHLY']}},
      {key: 'starts_at', helpValue: 'DATETIME', help: 'First debit date-time, ISO 8601 with offset, e.g. 2026-12-01T09:00:00Z', prompt: 'Starts at (ISO 8601, e.g. 2026-12-01T09:00:00Z)'},
      reference('this mandate'),
      {key: 'description', help: 'Free text shown with the mandate'},
      {key: 'plan_id', flag: 'plan', helpValue: 'PLAN_ID', help: 'Subscription plan id (PLN_…) to link'},
      {key: 'customer_name', help: "Customer's name", prompt: "Customer's name"},
      {key: 'customer_email', helpValue: 'EMAIL', help: "Customer's email", prompt: "Customer's email"},
      NOTES,
    ],
    // with a plan the mandate enrols a subscriber, charged the plan's amount (spec: POST /v1/mandates, plan_id)
    confirm: {destination: ['body.mobile', 'body.provider'], when: 'body.plan_id', plan: 'body.plan_id'},
    view: 'mandate-create',
    wait: {get: 'mandates.get', query: {merchant_reference: ['response.merchant_reference', 'body.merchant_reference']}, noun: 'mandate', view: 'mandate', ...MANDATE_STATES},
    examples: [
      {description: 'Monthly mandate starting on the 1st, waiting for approval', command: 'mandates create --mobile 254712345670 --provider mpesa --currency KES --amount 1500.00 --frequency MONTHLY --starts-at 2026-12-01T09:00:00Z --reference gym-jane-2026 --wait --wait-timeout 600'},
      {description: 'Linked to a plan', command: 'mandates create --mobile 254712345670 --provider mpesa --currency KES --amount 400 --frequency WEEKLY --starts-at 2026-12-07T08:00:00+03:00 --reference veg-box-jane --plan PLN_ACMESILVER --customer-name "Jane Wanjiku" --customer-email jane@example.com'},
    ],
  },
  'mandates:get': {
    command: 'mandates:get',
    endpoint: 'mandates.get',
    summary: 'Show a mandate by its merchant reference',
    description: `The mandate as the service keeps it (processing until the customer approves, then succeeded; cancelled after \`pay mandates cancel\`).`,
    fields: [byReference('mandate')],
    view: 'mandate',
    wait: self('mandate', MANDATE_STATES),
    examples: [
      {description: 'Show a mandate (the reference as an argument, or --reference)', command: 'mandates get gym-jane-2026'},
      {description: 'Wait for the customer to approve, then debit', command: 'mandates get --reference gym-jane-2026 --wait && <%= config.bin %> debits create MD_7H3K9P2W --amount 1500 --currency KES --reference gym-jane-2026-12 --provider mpesa'},
    ],
  },
  'mandates:cancel': {
    command: 'mandates:cancel',
    endpoint: 'mandates.cancel',
    summary: 'Cancel a mandate',
    description: `The answer may still read "processing" while the cancellation is applied; the mandate then ends "cancelled".
Every mandate of the merchant that shares the same upstream mandate is cancelled, and a new mandate for the number needs the customer's approval again.`,
    fields: [
      MANDATE_ID,
      {...MOBILE, help: 'Wallet number of the mandate', prompt: {message: 'Wallet number of the mandate', rule: true}},
      {key: 'reason', help: 'Why the mandate is cancelled (kept with the cancellation)', prompt: 'Reason for cancelling'},
    ],
    view: 'mandate-cancellation',
    examples: [
      {description: "Cancel at the customer's request", command: 'mandates cancel MD_7H3K9P2W --mobile 254712345670 --reason "Customer asked to stop"'},
      {description: 'Preview the request', command: 'mandates cancel MD_7H3K9P2W --mobile 254712345670 --reason "Duplicate mandate" --dry-run'},
    ],
  },
  'debits:create': {
    command: 'debits:create',
    endpoint: 'debits.create',
    summary: 'Debit an approved mandate',
    description: `The mandate must be approved (\`pay mandates get --reference REF\` shows succeeded). API-enrolled subscriptions are not charged automatically after the first cycle: run this on your own schedule.`,
    fields: [
      MANDATE_ID,
      {...AMOUNT, prompt: 'Amount (e.g. 1500.00)'},
      CURRENCY,
      {...reference('this debit', 'Merchant reference for this debit')},
      {...PROVIDER, help: 'Mobile money provider code of the mandate'},
    ],
    confirm: {destination: ['path.mandate_id', 'body.provider']},
    view: 'debit',
    wait: {get: 'debits.status', query: {mandate_id: ['path.mandate_id'], merchant_reference: ['body.merchant_reference']}, label: ['body.merchant_reference'], noun: 'debit', ...TX_STATES},
    examples: [
      {description: "Charge this month's instalment and wait", command: 'debits create MD_7H3K9P2W --amount 1500.00 --currency KES --reference gym-jane-2026-12 --provider mpesa --wait'},
      {description: 'From a scheduler, with a stable idempotency key', command: 'debits create MD_7H3K9P2W --amount 400 --currency KES --reference veg-box-jane-w49 --provider mpesa --idempotency-key veg-box-jane-w49 --json'},
    ],
  },
  'debits:status': {
    command: 'debits:status',
    endpoint: 'debits.status',
    summary: 'Show the state of a mandate debit',
    description: 'The state of one debit of a mandate.',
    fields: [
      {key: 'mandate_id', in: 'query', flag: 'mandate', char: 'm', helpValue: 'MANDATE_ID', help: 'Mandate id (MD_…) the debit was made on', prompt: 'Mandate id (MD_…)'},
      {key: 'merchant_reference', in: 'query', flag: 'reference', char: 'r', helpValue: 'REF', help: 'Merchant reference of the debit', prompt: 'Merchant reference of the debit'},
    ],
    view: 'debit',
    wait: self('debit', TX_STATES, ['query.merchant_reference']),
    examples: [
      {description: 'Show a debit', command: 'debits status --mandate MD_7H3K9P2W --reference gym-jane-2026-12'},
      {description: 'Wait for it, as JSON', command: 'debits status --mandate MD_7H3K9P2W --reference gym-jane-2026-12 --wait --jq .status'},
    ],
  },
  'plans:list': {
    command: 'plans:list',
    endpoint: 'plans.list',
    summary: 'List the active subscription plans',
    description: `Needs the subscriptions product: without it the service answers 403 forbidden (exit 3).
Plan ids (PLN_…) are used by \`pay subscriptions create --plan\` and \`pay mandates create --plan\`.`,
    fields: [],
    list: true,
    view: 'plans',
    examples: [
      {description: 'Table of plans', command: 'plans list'},
      {description: 'Script: plan ids only', command: "plans list --jq '.data[].plan_id'"},
    ],
  },
  'subscriptions:create': {
    command: 'subscriptions:create',
    endpoint: 'subscriptions.create',
    summary: 'Enrol a subscriber on a plan (starts mandate enrolment)',
    description: `The subscription starts "pending_approval" while the customer approves the mandate on their phone; the plan amount is charged once on approval (at once when the number already has an approved mandate). Later cycles are not automatic: charge them with \`pay debits create\`.
Needs the subscriptions product (else 403, exit 3); an unknown or inactive plan answers 422 validation_error.
On a terminal, a missing --plan is offered as a list from \`pay plans list\`.`,
    fields: [
      {key: 'plan_id', flag: 'plan', helpValue: 'PLAN_ID', help: 'Plan id (PLN_…), see `pay plans list`', prompt: {message: 'Plan', choices: 'plans'}},
      reference('this subscription'),
      {key: 'customer_name', help: "Subscriber's name", prompt: "Subscriber's name"},
      {key: 'customer_email', helpValue: 'EMAIL', help: "Subscriber's email", prompt: "Subscriber's email"},
      MOBILE,
      PROVIDER,
      NOTES,
    ],
    // "The plan amount is charged once on approval, or at once when the mobile number already has an approved mandate"
    confirm: {destination: ['body.mobile', 'body.provider', 'body.customer_name'], plan: 'body.plan_id'},
    view: 'subscription',
    wait: {get: 'subscriptions.get', query: {merchant_reference: ['response.merchant_reference', 'body.merchant_reference']}, noun: 'subscription', ...SUBSCRIPTION_STATES},
    examples: [
      {description: 'Enrol Jane on the Gold plan and wait for approval', command: 'subscriptions create --plan PLN_ACMEGOLD --reference sub-jane-gold --customer-name "Jane Wanjiku" --customer-email jane@example.com --mobile 254712345670 --provider mpesa --wait'},
      {description: 'On a terminal, pick the plan and provider from lists (elsewhere it exits 2 naming --plan and --provider)', command: 'subscriptions create --reference sub-otieno --customer-name "Otieno Odhiambo" --customer-email otieno@example.com --mobile 254733111222'},
    ],
  },
  'subscriptions:get': {
    command: 'subscriptions:get',
    endpoint: 'subscriptions.get',
    summary: 'Show a subscription by its merchant reference',
    description: `State (pending_approval, active, cancelled, failed), plan, subscriber, mandate and dates.`,
    fields: [byReference('subscription')],
    view: 'subscription',
    wait: self('subscription', SUBSCRIPTION_STATES),
    examples: [
      {description: 'Show a subscription (the reference as an argument, or --reference)', command: 'subscriptions get sub-jane-gold'},
      {description: 'Wait until the subscriber approves', command: 'subscriptions get --reference sub-jane-gold --wait --wait-timeout 900'},
    ],
  },
  'customers:get': {
    command: 'customers:get',
    endpoint: 'customers.get',
    summary: 'Show a customer',
    description: 'Name, email, mobile, your reference and when the customer was created.',
    fields: [ID('Customer', 'MC')],
    view: 'customer',
    examples: [
      {description: 'Show a customer', command: 'customers get MC_ACME0001'},
      {description: 'Script: the email', command: 'customers get MC_ACME0001 --jq .email'},
    ],
  },
  'customers:collections': {
    command: 'customers:collections',
    endpoint: 'customers.collections',
    summary: "List a customer's collections",
    description: `One page (--page, --per-page), or every page with --all.
--all follows the pages to the end (or to the answer's total) and prints each page's rows as it arrives, so a long history never sits in memory; with --json it prints each page's body as the service sent it, one per line (JSON Lines); -o ndjson, csv and tsv stream the rows. --limit N stops after N collections. A page that repeats the one before (a service that does not page by page=), or a 1000th page, stops --all with an error: exit 1.
Paging parameters beyond per_page are not in the spec: we send page (1-based) and per_page (docs/assumptions.md).`,
    fields: [
      ID('Customer', 'MC'),
      {key: 'per_page', in: 'query', helpValue: 'N', help: 'Collections per request (service default 20)', prompt: false},
      {key: 'page', in: 'query', helpValue: 'N', help: 'Page to show, 1-based (not with --all)', prompt: false},
    ],
    paging: {flag: 'all', help: 'Follow the pages to the end, streaming rows as they arrive', exclusive: ['page'], noun: 'collection'},
    list: true,
    view: 'customer-collections',
    examples: [
      {description: 'The latest page', command: 'customers collections MC_ACME0001'},
      {description: 'Every collection, 100 per request, into a spreadsheet (RFC 4180 CSV)', command: 'customers collections MC_ACME0001 --all --per-page 100 -o csv --fields id,status,amount,currency,merchant_reference,created_at > jane.csv'},
      {description: 'Every collection as JSON, one object per line', command: 'customers collections MC_ACME0001 --all -o ndjson'},
      {description: 'The 5 latest, ids of the failed ones only', command: "customers collections MC_ACME0001 --limit 5 --jq '.data[] | select(.status == \"failed\") | .id'"},
    ],
  },
  'virtual-accounts:create': {
    command: 'virtual-accounts:create',
    endpoint: 'customers.createVirtualAccount',
    alternatives: [{flag: 'merchant', endpoint: 'merchantVirtualAccount.create', help: "Issue (or return) the merchant's own standing account", choice: 'merchant'}],
    choose: {message: 'Whose account', default: 'customer'},
    summary: 'Issue a static bank account for a customer (--customer) or the merchant (--merchant)',
    description: `--customer: a dedicated standing bank account for one customer (capped at 1000 active accounts per merchant). --merchant: the merchant's standing account.
Both need the Static VA product, send the body [] and repeat calls return the existing ACTIVE account.
On a terminal, when neither flag is given, you are asked which account.`,
    fields: [{key: 'id', in: 'path', flag: 'customer', char: 'c', helpValue: 'ID', help: 'Customer id (MC_…) to issue the account for', prompt: 'Customer id (MC_…)', for: 'customers.createVirtualAccount'}],
    fixedBody: [],
    view: 'virtual-account',
    examples: [
      {description: 'Give Jane her own account to pay into', command: 'virtual-accounts create --customer MC_ACME0001'},
      {description: "The merchant's standing account, as JSON", command: 'virtual-accounts create --merchant --jq .virtual_account.account_number'},
    ],
  },
  'virtual-accounts:get': {
    command: 'virtual-accounts:get',
    endpoint: 'customers.getVirtualAccount',
    alternatives: [{flag: 'merchant', endpoint: 'merchantVirtualAccount.get', help: "The merchant's own standing account", choice: 'merchant'}],
    choose: {message: 'Whose account', default: 'customer'},
    summary: "Show a customer's (--customer) or the merchant's (--merchant) static bank account",
    description: `Shows the bank, account number and name to give to whoever pays in, its state and deposit limit.
On a terminal, when neither flag is given, you are asked which account.`,
    fields: [{key: 'id', in: 'path', flag: 'customer', char: 'c', helpValue: 'ID', help: 'Customer id (MC_…)', prompt: 'Customer id (MC_…)', for: 'customers.getVirtualAccount'}],
    view: 'virtual-account',
    examples: [
      {description: "Jane's account", command: 'virtual-accounts get --customer MC_ACME0001'},
      {description: "The merchant's account number", command: 'virtual-accounts get --merchant --jq .virtual_account.account_number'},
    ],
  },
  'metadata:banks': {
    command: 'metadata:banks',
    endpoint: 'metadata.banks',
    summary: 'List banks and their codes',
    description: 'Bank codes are used by `pay verifications bank-account --bank-code` and bank payouts.',
    fields: [],
    list: true,
    view: 'banks',
    examples: [
      {description: 'Table of banks', command: 'metadata banks'},
      {description: 'Find a bank code', command: "metadata banks --jq '.data[] | select(.bank_name|test(\"Equity\")) | .bank_code'"},
    ],
  },
  'metadata:providers': {
    command: 'metadata:providers',
    endpoint: 'metadata.providers',
    aliases: ['metadata:mobile-providers'],
    summary: 'List mobile money provider codes',
    description: 'The codes are what --provider takes.',
    fields: [],
    list: true,
    view: 'providers',
    examples: [
      {description: 'Provider codes', command: 'metadata providers'},
      {description: 'As a plain list for a script', command: "metadata providers --jq '.data[].provider'"},
    ],
  },
  balance: {
    command: 'balance',
    endpoint: 'balance.get',
    summary: 'Show wallet balances',
    description: 'Shows, per currency, the collection wallet (available after the T+1 hold), the total of succeeded credits (collection_wallet_actual), the part still held (collection_wallet_held) and the payout wallet that payouts draw from.',
    fields: [{key: 'currency', in: 'query', helpValue: 'CODE', help: 'Only this currency, e.g. KES', upper: true, prompt: false}],
    view: 'balance',
    examples: [
      {description: 'All wallets', command: 'balance'},
      {description: 'One currency, as JSON for a script', command: 'balance --currency KES --jq .data[0].payout_wallet'},
    ],
  },
  account: {
    command: 'account',
    endpoint: 'account.get',
    summary: 'Show the authenticated merchant and sub-account',
    description: 'The merchant the credentials belong to and the sub-account resolved from X-Service-Account-Ref (--account-ref, PAY_ACCOUNT_REF or the profile). A quick proof that credentials and connectivity work.',
    fields: [],
    view: 'account',
    examples: [
      {description: 'Who am I?', command: 'account'},
      {description: 'Check a sub-account ref in CI (acme-main: the sandbox merchant\'s account)', command: 'account --account-ref acme-main --json'},
    ],
  },
} as const satisfies Record<string, OperationSpec>

export type OperationId = keyof typeof operations

export const operationList: readonly OperationSpec[] = Object.values(operations)
