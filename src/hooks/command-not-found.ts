/**
 * oclif's `command_not_found` hook: an unknown command is named the way it was typed (space separated, not
 * oclif's `sandbox:smoke`), with the closest known commands suggested. Exit 2; under --json the error envelope.
 * Light on purpose: it runs only when no command matched.
 */
import type {Hook} from '@oclif/core'

const hook: Hook<'command_not_found'> = async function (options) {
  const typed = options.id.replace(/:/g, ' ')
  const known = options.config.commandIDs.map((id) => id.replace(/:/g, ' '))
  const suggestions = closest(typed, known)
  const message = `unknown command "${typed}"`
  const hint = suggestions.length > 0 ? `did you mean ${suggestions.map((s) => `\`pay ${s}\``).join(' or ')}? (\`pay --help\` lists every command)` : 'see `pay --help` for the commands'
  if (options.argv?.includes('--json')) process.stdout.write(`${JSON.stringify({error: {code: 'unknown_command', message, hint}})}\n`)
  process.stderr.write(`error: ${message}\n  next: ${hint}\n`)
  this.exit(2)
}

export default hook

/** Up to two commands nearest to what was typed (edit distance, at most a third of its length), nearest first. */
export function closest(typed: string, known: string[]): string[] {
  const limit = Math.max(2, Math.floor(typed.length / 3))
  return known
    .map((k) => ({k, d: distance(typed, k)}))
    .filter(({d}) => d <= limit)
    .sort((a, b) => a.d - b.d || a.k.localeCompare(b.k))
    .slice(0, 2)
    .map(({k}) => k)
}

/** Levenshtein distance, one row at a time. */
function distance(a: string, b: string): number {
  let prev = Array.from({length: b.length + 1}, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    prev = row
  }
  return prev[b.length]
}
