/**
 * An unknown command, named the way it was typed (space separated, not oclif's `sandbox:smoke`), with the closest
 * known commands suggested; exit 2, and under --json the error envelope. Used as oclif's `command_not_found` hook
 * and by bin/run.cjs's fast path (which answers an unknown first word without loading oclif): one message for both.
 * Light on purpose: node:fs only at the top (the @oclif/core import is a type; the hook loads the Output it writes with).
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import type {Hook} from '@oclif/core'

/**
 * The error for an unknown command id (oclif's form, `a:b`), with suggestions from the manifest's command ids
 * (the fast path has them from the help cache's index, which the build copies from the manifest; the hook reads
 * the manifest): what goes to stdout (the envelope, under --json) and to stderr. The caller writes it (bin/run.cjs's fast path, or the hook below through an Output) and exits 2.
 */
export function unknownCommandText(commandIds: string[], id: string, argv: string[]): {stdout?: string; stderr: string} {
  const typed = id.replace(/:/g, ' ')
  const suggestions = closest(
    typed,
    commandIds.map((c) => c.replace(/:/g, ' ')),
  )
  const message = `unknown command "${typed}"`
  const hint = suggestions.length > 0 ? `did you mean ${suggestions.map((s) => `\`pay ${s}\``).join(' or ')}? (\`pay --help\` lists every command)` : 'see `pay --help` for the commands'
  return {
    stdout: argv.includes('--json') ? `${JSON.stringify({error: {code: 'unknown_command', message, hint}})}\n` : undefined,
    stderr: `error: ${message}\n  next: ${hint}`,
  }
}

const hook: Hook<'command_not_found'> = async function (options) {
  const text = unknownCommandText(manifestCommandIds(options.config.root), options.id, options.argv ?? [])
  // loaded only here (oclif's path): the fast path in bin/run.cjs needs the text alone
  const [{Output}, {detectTerminal}] = await Promise.all([import('../output/output.js'), import('../output/terminal.js')])
  const out = new Output(detectTerminal(), false)
  if (text.stdout) out.chunk(text.stdout)
  out.notice(text.stderr)
  this.exit(2)
}

export default hook

/** The command ids of the manifest, as the build lists them in the help cache's index. */
export function manifestCommandIds(root: string): string[] {
  const manifest = JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, unknown>}
  return Object.keys(manifest.commands)
}

/** Up to two commands nearest to what was typed (edit distance, at most a third of its length), nearest first. */
export function closest(typed: string, known: string[]): string[] {
  const limit = Math.max(2, Math.floor(typed.length / 3))
  return known
    .map((k) => ({k, d: distanceWithin(typed, k, limit)}))
    .filter(({d}) => d <= limit)
    .sort((a, b) => a.d - b.d || a.k.localeCompare(b.k))
    .slice(0, 2)
    .map(({k}) => k)
}

/**
 * Levenshtein distance, one row at a time; past `limit` (when the lengths differ by more, or a whole row is over
 * it) only limit + 1: what is further away is never suggested. Every command id was measured in full before: ~15M
 * instructions of an unknown command's ~25M above `node -e 0`.
 */
function distanceWithin(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1
  let prev = Array.from({length: b.length + 1}, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    let least = i
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
      if (row[j] < least) least = row[j]
    }
    // each later row's least is at least this one's
    if (least > limit) return limit + 1
    prev = row
  }
  return prev[b.length]
}
