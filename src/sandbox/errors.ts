/** The spec's error envelope: `{"error":{"code","message","request_id","doc_url"?,"param"?,"retry_after"?}}`. */
import {printable} from '../output/printable.js'

/** Sections of docs/sandbox.md (served at /_sandbox/docs) that explain each kind of error. */
const DOC_SECTIONS: Record<string, string> = {
  validation: 'rules-enforced',
  authentication: 'rules-enforced',
  products: 'rules-enforced',
  idempotency: 'rules-enforced',
  'rate-limits': 'rules-enforced',
  mandates: 'deterministic-outcomes',
  verifications: 'deterministic-outcomes',
  faults: 'faults',
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: {param?: string; retry_after?: number; doc?: string; headers?: Record<string, string>} = {},
  ) {
    super(message)
  }
}

export const invalidParameter = (param: string, message: string) =>
  new ApiError(400, 'invalid_parameter', `${param}: ${message}`, {param, doc: 'validation'})
export const notFound = (what: string) => new ApiError(404, 'not_found', `${what} not found`)
export const forbidden = (message: string) => new ApiError(403, 'forbidden', message, {doc: 'products'})
export const validationError = (param: string, message: string) =>
  new ApiError(422, 'validation_error', `${param}: ${message}`, {param})

/** The error envelope; `docBase` is the sandbox's base URL (doc_url points at its /_sandbox/docs page). */
export function errorBody(err: ApiError, requestId: string, docBase = ''): Record<string, unknown> {
  // messages name what was asked for (an id from the path, a reference): control characters in it are escaped
  const error: Record<string, unknown> = {code: err.code, message: printable(err.message), request_id: requestId}
  if (err.extra.param) error.param = err.extra.param
  if (err.extra.doc && docBase) error.doc_url = `${docBase}/_sandbox/docs#${DOC_SECTIONS[err.extra.doc] ?? err.extra.doc}`
  if (err.extra.retry_after !== undefined) error.retry_after = err.extra.retry_after
  return {error}
}
