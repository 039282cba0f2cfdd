/** The spec's error envelope: `{"error":{"code","message","request_id","doc_url"?,"param"?,"retry_after"?}}`. */
export const DOC_BASE = 'https://github.com/pay-cli/pay/blob/main/docs/sandbox.md'

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
export const unauthorized = (message: string) => new ApiError(401, 'invalid_client', message, {doc: 'authentication'})

export function errorBody(err: ApiError, requestId: string): Record<string, unknown> {
  const error: Record<string, unknown> = {code: err.code, message: err.message, request_id: requestId}
  if (err.extra.param) error.param = err.extra.param
  if (err.extra.doc) error.doc_url = `${DOC_BASE}#${err.extra.doc}`
  if (err.extra.retry_after !== undefined) error.retry_after = err.extra.retry_after
  return {error}
}
