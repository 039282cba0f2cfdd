/** zod request validation -> 400 invalid_parameter naming the field (schemas come from the endpoint table). */
import type {z} from 'zod'
import {invalidParameter} from './errors.js'

function at(value: unknown, path: PropertyKey[]): unknown {
  let v = value
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined
    v = (v as Record<PropertyKey, unknown>)[key]
  }
  return v
}

export function validate<T>(schema: z.ZodType<T>, value: unknown, where: 'body' | 'query'): T {
  const result = schema.safeParse(value)
  if (result.success) return result.data
  const issue = result.error.issues[0]
  const param = issue.path.length > 0 ? issue.path.map(String).join('.') : where
  let message = issue.message
  if (issue.code === 'invalid_type' && issue.path.length > 0 && at(value, issue.path) === undefined) message = 'is required'
  throw invalidParameter(param, message)
}
