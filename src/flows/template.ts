/**
 * References inside flow values:
 *   ${steps.ID.a.b.0.c}   a dot path into the (final) body of an earlier step
 *   ${env.NAME}           an environment variable; ${env.NAME:-default} with a default
 *   ${run.id}             a short id unique to this run (for merchant references)
 * A string that is exactly one reference takes the referenced value as is (a number stays a number); references
 * inside longer text are written into it.
 */

export interface Scope {
  steps: Record<string, unknown>
  env: Record<string, string | undefined>
  run: {id: string}
}

interface Reference {
  /** The text of the reference, `steps.charge.id`. */
  expr: string
  kind: 'steps' | 'env' | 'run'
  /** steps: the step id; env: the variable; run: the field. */
  name: string
  /** steps: the dot path after the step id. */
  path: string[]
  fallback?: string
}

/** The `${…}` spans of a text, braces balanced (so a default may hold a reference: `${env.X:-a-${run.id}}`). */
function spans(text: string): {start: number; end: number; expr: string}[] {
  const found: {start: number; end: number; expr: string}[] = []
  let i = text.indexOf('${')
  while (i !== -1) {
    let depth = 0
    let j = i + 1
    for (; j < text.length; j++) {
      if (text[j] === '{') depth++
      else if (text[j] === '}' && --depth === 0) break
    }
    if (j >= text.length) {
      found.push({start: i, end: text.length, expr: text.slice(i + 2)})
      break
    }
    found.push({start: i, end: j + 1, expr: text.slice(i + 2, j)})
    i = text.indexOf('${', j + 1)
  }
  return found
}

function replaceSpans(text: string, fn: (expr: string) => string): string {
  let result = ''
  let at = 0
  for (const span of spans(text)) {
    result += text.slice(at, span.start) + fn(span.expr)
    at = span.end
  }
  return result + text.slice(at)
}

function parseReference(expr: string): Reference | string {
  const text = expr.trim()
  const env = /^env\.([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s.exec(text)
  if (env) return {expr: text, kind: 'env', name: env[1], path: [], fallback: env[2]}
  if (text === 'run.id') return {expr: text, kind: 'run', name: 'id', path: []}
  const step = /^steps\.([A-Za-z][A-Za-z0-9_-]*)((?:\.[^.\s]+)*)$/.exec(text)
  if (step) return {expr: text, kind: 'steps', name: step[1], path: step[2] ? step[2].slice(1).split('.') : []}
  return `\${${expr}} is not a reference: use \${steps.ID.field}, \${env.NAME}, \${env.NAME:-default} or \${run.id}`
}

/** Every reference in a value (deeply), or the problem with the first malformed one. */
export function referencesIn(value: unknown, found: (Reference | string)[] = []): (Reference | string)[] {
  if (typeof value === 'string') {
    for (const span of spans(value)) {
      const ref = parseReference(span.expr)
      found.push(ref)
      if (typeof ref !== 'string' && ref.fallback !== undefined) referencesIn(ref.fallback, found)
    }
  }
  else if (Array.isArray(value)) for (const v of value) referencesIn(v, found)
  else if (value && typeof value === 'object') for (const v of Object.values(value)) referencesIn(v, found)
  return found
}

export function hasReference(value: unknown): boolean {
  return referencesIn(value).length > 0
}

/** Walks a dot path into a JSON value (array items by index). */
export function dig(value: unknown, path: string[]): {found: boolean; value?: unknown} {
  let cur = value
  for (const key of path) {
    if (Array.isArray(cur) && /^\d+$/.test(key) && Number(key) < cur.length) cur = cur[Number(key)]
    else if (cur && typeof cur === 'object' && !Array.isArray(cur) && Object.hasOwn(cur, key)) cur = (cur as Record<string, unknown>)[key]
    else return {found: false}
  }
  return {found: true, value: cur}
}

export class ReferenceError extends Error {}

function lookup(ref: Reference, scope: Scope): unknown {
  if (ref.kind === 'run') return scope.run.id
  if (ref.kind === 'env') {
    const v = scope.env[ref.name]
    if (v !== undefined && v !== '') return v
    if (ref.fallback !== undefined) return resolve(ref.fallback, scope)
    throw new ReferenceError(`\${${ref.expr}}: ${ref.name} is not set in the environment (give a default: \${env.${ref.name}:-value})`)
  }
  if (!Object.hasOwn(scope.steps, ref.name)) throw new ReferenceError(`\${${ref.expr}}: step "${ref.name}" has no result (it has not run, or failed)`)
  const got = dig(scope.steps[ref.name], ref.path)
  if (!got.found) throw new ReferenceError(`\${${ref.expr}}: the answer of step "${ref.name}" has no ${ref.path.join('.')}`)
  return got.value
}

/** Replaces every reference in a value (deeply). Throws ReferenceError naming the reference that cannot resolve. */
export function resolve(value: unknown, scope: Scope): unknown {
  if (typeof value === 'string') {
    const all = spans(value)
    if (all.length === 1 && all[0].start === 0 && all[0].end === value.length) {
      const ref = parseReference(all[0].expr)
      if (typeof ref === 'string') throw new ReferenceError(ref)
      return lookup(ref, scope)
    }
    return replaceSpans(value, (expr: string) => {
      const ref = parseReference(expr)
      if (typeof ref === 'string') throw new ReferenceError(ref)
      const v = lookup(ref, scope)
      return typeof v === 'string' ? v : JSON.stringify(v)
    })
  }
  if (Array.isArray(value)) return value.map((v) => resolve(v, scope))
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v, scope)]))
  return value
}
