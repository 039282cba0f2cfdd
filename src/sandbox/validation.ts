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

const MAX_URL_LENGTH = 2048

/** An absolute http(s) URL of at most MAX_URL_LENGTH characters, else 400 (no javascript:, data: or file: URLs). */
export function httpUrl(value: unknown, name: string): string {
  if (typeof value === 'string' && value.length <= MAX_URL_LENGTH) {
    try {
      const u = new URL(value)
      if (u.protocol === 'http:' || u.protocol === 'https:') return value
    } catch {
      // not a URL
    }
  }
  throw invalidParameter(name, `must be an absolute http(s) URL of at most ${MAX_URL_LENGTH} characters`)
}
