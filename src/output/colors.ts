/** ANSI colours, and the colour of each state word. Pass `enabled` from the Terminal. */
const CODES = {red: [31, 39], green: [32, 39], yellow: [33, 39], cyan: [36, 39], dim: [2, 22], bold: [1, 22]} as const
export type ColorName = keyof typeof CODES

export function paint(enabled: boolean, color: ColorName, text: string): string {
  if (!enabled) return text
  const [open, close] = CODES[color]
  return `\u001B[${open}m${text}\u001B[${close}m`
}

const GOOD = new Set(['succeeded', 'active', 'verified', 'approved', 'ok', 'valid'])
const BAD = new Set(['failed', 'cancelled', 'canceled', 'invalid', 'rejected', 'expired', 'charge_failed'])
const PENDING = new Set(['processing', 'pending_approval', 'pending', 'created'])

function stateColor(state: string): ColorName | undefined {
  const s = state.toLowerCase()
  if (GOOD.has(s)) return 'green'
  if (BAD.has(s)) return 'red'
  if (PENDING.has(s)) return 'yellow'
  return undefined
}

export function paintState(enabled: boolean, state: string): string {
  if (!enabled) return state
  const color = stateColor(state)
  return color ? paint(enabled, color, state) : state
}
