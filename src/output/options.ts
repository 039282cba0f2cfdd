/**
 * What the output flags ask for (--json, -o/--output, --fields, --jq, --no-header, --quiet), as one value the
 * Output is built with. Light (no imports): the base command reads it from parsed flags, or from argv when
 * parsing itself failed, so an error is rendered in the format that was asked for.
 */
const FORMATS = ['table', 'json', 'ndjson', 'csv', 'tsv', 'yaml'] as const
/** The bounds of one run of the --jq program unless --jq-timeout / --jq-memory say otherwise (src/output/jq-bounded.ts). */
export const DEFAULT_JQ_TIMEOUT_SECONDS = 10
export const DEFAULT_JQ_MEMORY_MB = 512
export type Format = (typeof FORMATS)[number]
/** What -o takes: the formats, and wide (a table whose columns are never cut to the terminal's width). */
export const OUTPUT_CHOICES = [...FORMATS, 'wide'] as const

export interface OutputOptions {
  format: Format
  /** --fields: dot paths, in order: columns of a table/csv/tsv, keys of json/ndjson/yaml. */
  fields?: string[]
  /** --jq: a jq program applied to each JSON document before it is written. */
  jq?: string
  /** -o was not given with --jq: strings are printed raw, other values as compact JSON (gh's --jq). */
  jqRaw?: boolean
  noHeader?: boolean
  quiet?: boolean
  /** --raw-csv: CSV and TSV cells written as they are, without the formula-cell neutralisation. */
  rawCsv?: boolean
  /** --jq-timeout and --jq-memory: the bounds of one run of the jq program (src/output/jq-bounded.ts). */
  jqTimeoutSeconds?: number
  jqMemoryMb?: number
  /** -o wide: a table on a terminal keeps every value whole (else it fits the terminal's width). */
  wide?: boolean
}

export interface OutputFlagValues {
  json?: boolean
  output?: string
  fields?: string
  jq?: string
  'no-header'?: boolean
  quiet?: boolean
  'raw-csv'?: boolean
  'jq-timeout'?: number
  'jq-memory'?: number
}

/** A problem with the output flags themselves (checked before anything is sent). */
interface OutputFlagProblem {
  flag: string
  rule: string
}

function parseFields(text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined
  return text
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean)
}

export function outputOptions(flags: OutputFlagValues): {options: OutputOptions; problems: OutputFlagProblem[]} {
  const problems: OutputFlagProblem[] = []
  let format: Format = 'table'
  const wide = flags.output === 'wide'
  if (flags.output !== undefined) {
    if ((FORMATS as readonly string[]).includes(flags.output)) format = flags.output as Format
    else if (!wide) problems.push({flag: '--output', rule: `must be one of ${OUTPUT_CHOICES.join(', ')}`})
    if (flags.json && format !== 'json') problems.push({flag: '--json', rule: `cannot be combined with --output ${flags.output} (--json is -o json)`})
  } else if (flags.json) format = 'json'
  const fields = parseFields(flags.fields)
  if (fields && fields.length === 0) problems.push({flag: '--fields', rule: 'must name at least one field (a,b.c,…)'})
  if (fields?.some((f) => f.split('.').some((p) => p === ''))) problems.push({flag: '--fields', rule: 'must be dot paths like id,customer.name'})
  if (flags.jq !== undefined && flags.jq.trim() === '') problems.push({flag: '--jq', rule: 'must not be empty'})
  const jq = flags.jq?.trim() ? flags.jq : undefined
  const jqRaw = jq !== undefined && flags.output === undefined && !flags.json
  if (jq !== undefined && format === 'table') format = 'json'
  return {options: {format, fields, jq, jqRaw, noHeader: flags['no-header'], quiet: flags.quiet, rawCsv: flags['raw-csv'], jqTimeoutSeconds: flags['jq-timeout'], jqMemoryMb: flags['jq-memory'], ...(wide && {wide})}, problems}
}

/** The output flags read straight from argv (for an error raised while parsing): best effort, never throws. */
export function outputFlagsFromArgv(argv: readonly string[]): OutputFlagValues {
  const flags: OutputFlagValues = {json: argv.includes('--json'), quiet: argv.includes('--quiet') || argv.includes('-q')}
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '-o' || a === '--output') flags.output = argv[i + 1]
    else if (a.startsWith('--output=')) flags.output = a.slice('--output='.length)
    else if (a.startsWith('-o') && a.length > 2 && !a.startsWith('--')) flags.output = a.slice(2)
  }
  if (flags.output !== undefined && !(OUTPUT_CHOICES as readonly string[]).includes(flags.output)) flags.output = undefined
  return flags
}
