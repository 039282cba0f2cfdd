/**
 * Checks a request body (or query) against the endpoint table's zod schema before anything is sent, and names
 * the flag behind each problem: body field `merchant_reference` is reported as `--reference` when the command
 * says so, otherwise as `--merchant-reference`.
 */
import type {z} from 'zod'
import {REFINEMENTS} from './schemas.js'
import {storedCheck} from './sure-match.js'
import {bodyPlans, queryPlans} from './sure-plans.generated.js'

export interface FieldProblem {
  flag: string
  rule: string
}

function flagFor(field: string, names: Record<string, string> = {}): string {
  return names[field] ?? `--${field.replace(/_/g, '-')}`
}

/** "is required when payment_rail is mobile_money" reads "… when --rail is mobile_money" for the user. */
export function withFlagNames(rule: string, names: Record<string, string>): string {
  return rule.replace(/\b[a-z]+(?:_[a-z]+)+\b/g, (word) => names[word] ?? word)
}

export function problemsOf(schema: z.ZodType, value: unknown, names: Record<string, string> = {}): FieldProblem[] {
  const parsed = schema.safeParse(value)
  if (parsed.success) return []
  const seen = new Set<string>()
  const problems: FieldProblem[] = []
  for (const issue of parsed.error.issues) {
    const field = issue.path.length > 0 ? String(issue.path[0]) : ''
    const flag = field ? flagFor(field, names) : '(body)'
    const key = `${flag}:${issue.message}`
    if (seen.has(key)) continue
    seen.add(key)
    problems.push({flag, rule: withFlagNames(issue.message, names)})
  }
  return problems
}

/**
 * problemsOf for a table endpoint's request body or query: none, without building its zod schema, when the plan
 * stored for it (src/api/sure-plans.generated.ts) is sure of the value (the same verdict: test/api/sure-match.test.ts);
 * zod's problems otherwise.
 */
export function requestProblems(endpoint: {id: string; body?: z.ZodType; query?: z.ZodType}, place: 'body' | 'query', value: unknown, names: Record<string, string> = {}): FieldProblem[] {
  // the table's schemas are getters that make the schema: read only when the plan is not sure
  if (!(place in endpoint)) return []
  const sure = storedCheck(place === 'body' ? bodyPlans : queryPlans, endpoint.id, REFINEMENTS)
  if (sure?.(value)) return []
  const schema = endpoint[place]
  return schema === undefined ? [] : problemsOf(schema, value, names)
}
