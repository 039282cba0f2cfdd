/**
 * Flags shared by many commands. Light: only @oclif/core is imported here, so `--help` stays fast.
 */
import {Flags} from '@oclif/core'
import {DEFAULT_JQ_MEMORY_MB, DEFAULT_JQ_TIMEOUT_SECONDS, OUTPUT_CHOICES} from '../output/options.js'

export const globalFlags = {
  json: Flags.boolean({description: 'Print the service\'s JSON body on stdout and nothing else (errors as {"error":…}); the same as -o json', helpGroup: 'GLOBAL'}),
  output: Flags.string({char: 'o', description: 'Output format: table (default; on a terminal, cut to its width with …), wide (a table with every value whole), json, ndjson (one object per line), csv (RFC 4180), tsv, yaml; lists stream in ndjson, csv and tsv', options: [...OUTPUT_CHOICES], helpValue: 'FORMAT', helpGroup: 'GLOBAL'}),
  fields: Flags.string({description: 'Only these fields, as dot paths (id,status,customer.name): the columns of a table, csv or tsv, the keys of json', helpValue: 'a,b.c', helpGroup: 'GLOBAL'}),
  jq: Flags.string({description: 'Filter the JSON output with a jq program, in-process (a string result prints raw, with or without --json, like gh --jq); checked before anything is sent', helpValue: 'EXPR', helpGroup: 'GLOBAL'}),
  'no-header': Flags.boolean({description: 'No header line in tables, csv and tsv', helpGroup: 'GLOBAL'}),
  'jq-timeout': Flags.integer({description: `Seconds one run of the --jq program may take (default ${DEFAULT_JQ_TIMEOUT_SECONDS}); past it: exit 2`, min: 1, max: 3600, helpValue: 'SECONDS', helpGroup: 'GLOBAL'}),
  'jq-memory': Flags.integer({description: `Megabytes one run of the --jq program may use (default ${DEFAULT_JQ_MEMORY_MB}); past it: exit 2`, min: 16, max: 16_384, helpValue: 'MB', helpGroup: 'GLOBAL'}),
  'raw-csv': Flags.boolean({description: "Write csv and tsv cells as they are: by default a cell starting with = + - @ is prefixed with ' so a spreadsheet never runs it as a formula", helpGroup: 'GLOBAL'}),
  quiet: Flags.boolean({char: 'q', description: 'No progress or notices on stderr (errors are still shown)', helpGroup: 'GLOBAL'}),
  'no-input': Flags.boolean({description: 'Never prompt, even on a terminal (also PAY_NO_INPUT=1 or CI)', helpGroup: 'GLOBAL'}),
  debug: Flags.boolean({description: 'Trace each request and response on stderr (secrets redacted)', helpGroup: 'GLOBAL'}),
}

export const connectionFlags = {
  profile: Flags.string({char: 'p', description: 'Profile to use (env PAY_PROFILE; default: the active profile)', helpGroup: 'GLOBAL'}),
  'base-url': Flags.string({description: 'Service base URL (env PAY_BASE_URL)', helpGroup: 'GLOBAL'}),
  'account-ref': Flags.string({description: 'Sub-account ref sent as X-Service-Account-Ref (env PAY_ACCOUNT_REF)', helpGroup: 'GLOBAL'}),
  retries: Flags.integer({description: 'Retries of a failed request that is safe to repeat', default: 3, min: 0, max: 10, helpGroup: 'GLOBAL'}),
  timeout: Flags.integer({description: 'Seconds each attempt may take, body included; all attempts together stop after twice this', default: 30, min: 1, max: 600, helpGroup: 'GLOBAL'}),
}

/** For commands that create or move money: the key is reused by every retry. */
export const idempotencyFlags = {
  'idempotency-key': Flags.string({description: 'Idempotency-Key to send (default: a new UUID); reuse it only to repeat the same request'}),
  'dry-run': Flags.boolean({description: 'Print the request that would be sent (and a curl line) and send nothing'}),
  'force-new': Flags.boolean({description: 'Send as a new request even when the journal shows the service already accepted this same request (or its outcome is unknown)'}),
}

/** Bulk runs (src/bulk/): one request per row of a file, resumable. On the idempotent create commands. */
export const bulkFlags = {
  'from-file': Flags.string({description: 'Run once per row of FILE (CSV with a header row of flag names, or NDJSON; - for stdin); the other flags are defaults for every row. Re-running the same command on the same file resumes it', helpValue: 'FILE', helpGroup: 'BULK'}),
  format: Flags.string({description: 'Format of --from-file (default: from its extension; csv for stdin)', options: ['csv', 'ndjson'], helpGroup: 'BULK'}),
  concurrency: Flags.integer({description: 'Requests in flight at most with --from-file (lowered automatically on 429)', default: 8, min: 1, max: 64, helpGroup: 'BULK'}),
  results: Flags.string({description: 'Write each row\'s result to FILE: CSV when it ends in .csv, else NDJSON', helpValue: 'FILE', helpGroup: 'BULK'}),
  'retry-failed': Flags.boolean({description: 'With --from-file: send again the rows the service refused in an earlier run of the same file', helpGroup: 'BULK'}),
}

/** Extra body fields for what the spec does not show. */
export const bodyFlags = {
  data: Flags.string({description: 'Extra JSON body fields: a JSON object, @file, or - for stdin'}),
  field: Flags.string({char: 'F', description: 'Extra body field: key=value sends a string, key:=json a JSON value; dots nest (a.b=c). Repeatable', multiple: true}),
}

/** --wait on commands that start a transaction and on their `get` commands (src/operation/wait.ts). */
export const waitFlags = {
  wait: Flags.boolean({description: 'Poll until the transaction ends: exit 0 when it succeeded (or is active), 8 when it failed or was cancelled, 9 on --wait-timeout'}),
  // no oclif default: given without --wait it is refused (src/operation/wait.ts, DEFAULT_WAIT_TIMEOUT_SEC)
  'wait-timeout': Flags.integer({description: 'Seconds --wait polls before giving up (exit 9); 120 when not given; only with --wait', min: 1, max: 86_400}),
}

/** Every command whose answer is a list (OperationSpec.list). */
export const listFlags = {
  limit: Flags.integer({description: 'At most N items (follows the pages as far as needed where the service pages)', min: 1, helpValue: 'N'}),
}

/** --all on a list the service answers in one response: accepted so that scripts can pass it everywhere. */
export const onePageAllFlag = {
  all: Flags.boolean({description: 'Every item (the service answers this list in one response)'}),
}

/** Commands that can move money: with a live profile, asked first where a person is present, else refused without --yes (src/operation/confirm.ts). */
export const confirmFlags = {
  yes: Flags.boolean({char: 'y', description: 'Move money with a live profile without a question (needed where no one can be asked: CI, --no-input, no terminal)'}),
}

/** The filters `pay webhook history` and `pay webhook replay` share. */
export const historyFilterFlags = {
  type: Flags.string({description: "Only these event types: comma-separated globs ('collection.*,payout.failed')", multiple: true}),
  since: Flags.string({description: 'Only deliveries received since: a duration back from now (30m, 1h, 2d) or a date/time (2026-11-26T14:00:00Z)'}),
  verdict: Flags.string({description: 'Only deliveries with this verdict', options: ['accepted', 'duplicate', 'rejected']}),
  forward: Flags.string({description: 'Only deliveries whose forwarding is ok, failed (the latest forward or replay not answered 2xx) or none (not forwarded)', options: ['ok', 'failed', 'none']}),
  reference: Flags.string({description: "Only events whose data.merchant_reference is this"}),
}
