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
