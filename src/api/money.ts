/**
 * Money and field rules shared by the CLI's flag validation and the sandbox's request validation.
 * Amounts stay decimal strings end to end: nothing here converts them to a JavaScript number.
 * The fraction-digit limit is our assumption (docs/assumptions.md); change it here only.
 */
export const MAX_FRACTION_DIGITS = 2

const DECIMAL = new RegExp(`^(0|[1-9][0-9]*)(\\.[0-9]{1,${MAX_FRACTION_DIGITS}})?$`)

/** True for a positive decimal string such as "10", "10.5" or "1500.00". */
export function isDecimalAmount(value: string): boolean {
  return DECIMAL.test(value) && /[1-9]/.test(value)
}

/**
 * The one spelling of an amount on the wire: the integer part without leading zeros and exactly
 * MAX_FRACTION_DIGITS fraction digits ("1200", "1200.0" and "1200.00" are all sent as "1200.00"; "350.5" as
 * "350.50"), so that one amount is one body and one Idempotency-Key however a file or a flag spelt it (README:
 * Amounts). A value that is not a decimal amount is returned as it is (the schema's rule reports it).
 */
function canonicalAmount(value: string): string {
  if (!DECIMAL.test(value)) return value
  const dot = value.indexOf('.')
  if (dot === -1) return `${value}.${'0'.repeat(MAX_FRACTION_DIGITS)}`
  return value.padEnd(dot + 1 + MAX_FRACTION_DIGITS, '0')
}

/** The body fields that hold an amount (the request schemas' `amount` rule): sent in canonicalAmount's spelling. */
const AMOUNT_FIELDS = ['amount'] as const

/** A request body with its amounts in the one spelling (a new object when one changed; the body itself otherwise). */
export function withCanonicalAmounts(body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body
  let out = body as Record<string, unknown>
  for (const field of AMOUNT_FIELDS) {
    const v = out[field]
    if (typeof v !== 'string') continue
    const canonical = canonicalAmount(v)
    if (canonical !== v) out = {...out, [field]: canonical}
  }
  return out
}

/**
 * Compares two decimal strings without floating point: negative, zero or positive like a comparator.
 * Both must already satisfy isDecimalAmount (or be "0").
 */
export function compareDecimal(a: string, b: string): number {
  const [ai, af = ''] = a.split('.')
  const [bi, bf = ''] = b.split('.')
  const intA = ai.replace(/^0+(?=\d)/, '')
  const intB = bi.replace(/^0+(?=\d)/, '')
  if (intA.length !== intB.length) return intA.length - intB.length
  if (intA !== intB) return intA < intB ? -1 : 1
  const width = Math.max(af.length, bf.length)
  const fa = af.padEnd(width, '0')
  const fb = bf.padEnd(width, '0')
  if (fa === fb) return 0
  return fa < fb ? -1 : 1
}

/** Minor units (as bigint) of a decimal string, with `digits` fraction digits. Exact, no floats. */
export function toMinor(value: string, digits = MAX_FRACTION_DIGITS): bigint {
  const negative = value.startsWith('-')
  const [i, f = ''] = (negative ? value.slice(1) : value).split('.')
  // one BigInt of the digits ("12.5" -> "1250"), not a BigInt power per call: a bulk run totals every row
  const minor = BigInt(`${i || '0'}${f.padEnd(digits, '0').slice(0, digits)}`)
  return negative ? -minor : minor
}

/** Formats minor units back to a decimal string with exactly `digits` fraction digits. */
export function fromMinor(minor: bigint, digits = MAX_FRACTION_DIGITS): string {
  const negative = minor < 0n
  const abs = negative ? -minor : minor
  const scale = 10n ** BigInt(digits)
  const int = abs / scale
  const frac = (abs % scale).toString().padStart(digits, '0')
  return `${negative ? '-' : ''}${int}${digits > 0 ? '.' + frac : ''}`
}

/** Any decimal string, signed or not, with any number of fraction digits ("-50.00", "100.009"): what a total adds. */
const SIGNED_DECIMAL = /^-?\d+(\.\d+)?$/

export function isDecimal(value: string): boolean {
  return SIGNED_DECIMAL.test(value)
}

/**
 * An exact sum of decimal strings (isDecimal), in units of the largest scale seen so far (at least
 * MAX_FRACTION_DIGITS): "100.009" + "-50.00" is "50.009", never truncated or rounded, whatever the size.
 */
export class DecimalSum {
  private units = 0n
  private scale = MAX_FRACTION_DIGITS

  /** Adds `value` `times` times (a value that is not isDecimal is the caller's to refuse). */
  add(value: string, times = 1): void {
    const dot = value.indexOf('.')
    const digits = dot === -1 ? 0 : value.length - dot - 1
    if (digits > this.scale) {
      this.units *= 10n ** BigInt(digits - this.scale)
      this.scale = digits
    }
    this.units += toMinor(value, this.scale) * BigInt(times)
  }

  toString(): string {
    return fromMinor(this.units, this.scale)
  }
}
