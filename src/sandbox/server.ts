/**
 * Request handling: reads the request, dispatches (/v1, /pay, /_sandbox), answers, logs.
 * index.ts loads this module (and with it zod, the endpoint table and the resources) in the background while the
 * server starts listening, so start-up does not wait for it.
 *
 * Limits: a body over MAX_BODY_BYTES is answered 413 (from Content-Length before reading, else as soon as the
 * count passes it) and the connection closed; JSON depth and width are checked by json-body.ts. Whatever a
 * handler throws that is not an ApiError is a sandbox bug: answered 500 internal_error and logged, never fatal.
 */
import type {IncomingMessage, ServerResponse} from 'node:http'
import {handleControl} from './control-api.js'
import {type SbRequest, type SbResponse, jsonResponse, parseQuery} from './http.js'
import {newRequestId} from './ids.js'
import {MAX_BODY_BYTES} from './json-body.js'
import {handlePayPage} from './pay-page.js'
import {keptBody} from './request-log.js'
import {errorResponse, handleApi} from './router.js'
import type {Runtime} from './runtime.js'

const EMPTY: Buffer = Buffer.alloc(0)
const TOO_LARGE = Symbol('too large')

/** The body, or TOO_LARGE as soon as it passes MAX_BODY_BYTES (the rest is not kept). */
function readBody(req: IncomingMessage): Promise<Buffer | typeof TOO_LARGE> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const onData = (c: Buffer) => {
      size += c.length
      if (size > MAX_BODY_BYTES) {
        req.off('data', onData)
        req.pause()
        resolve(TOO_LARGE)
        return
      }
      chunks.push(c)
    }
    req.on('data', onData)
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)))
    req.on('error', reject)
  })
}

function tooLarge(res: ServerResponse): void {
  const requestId = newRequestId()
  const body = JSON.stringify({
    error: {code: 'request_too_large', message: `the request body exceeds the sandbox limit of ${MAX_BODY_BYTES} bytes`, request_id: requestId, param: 'body'},
  })
  // The unread rest of the body is not drained: the connection is closed once the answer is out.
  res.shouldKeepAlive = false
  res.writeHead(413, {'content-type': 'application/json; charset=utf-8', connection: 'close', 'x-request-id': requestId}).end(body, () => res.socket?.destroySoon())
}

async function dispatch(rt: Runtime, sb: SbRequest): Promise<SbResponse> {
  const p = sb.path
  if (p.startsWith('/v1/')) return handleApi(rt, sb)
  if (p.startsWith('/_sandbox/')) return handleControl(rt, sb)
  if (p.startsWith('/pay/')) return handlePayPage(rt, sb)
  if (p === '/' || p === '') return jsonResponse(200, {object: 'sandbox', name: 'Payments Service sandbox', version: '1.0', docs: 'docs/sandbox.md'})
  return jsonResponse(404, {error: {code: 'not_found', message: `no endpoint ${sb.method} ${p.length > 200 ? p.slice(0, 200) + '…' : p}`}})
}

export {scheduling} from './resources/index.js'

/** Answers one request; never rejects (a bug is answered 500 and logged). */
export async function handle(rt: Runtime, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    await serve(rt, req, res)
  } catch (err) {
    internalError(res, err)
  }
}

/** The last line of defence: a bug anywhere in request handling is answered 500 (when still possible) and logged. */
export function internalError(res: ServerResponse, err: unknown): void {
  console.error('sandbox bug:', err)
  if (res.headersSent) {
    res.destroy()
    return
  }
  const requestId = newRequestId()
  res.writeHead(500, {'content-type': 'application/json; charset=utf-8', 'x-request-id': requestId})
  res.end(JSON.stringify({error: {code: 'internal_error', message: 'sandbox bug: the request could not be handled (see the sandbox output)', request_id: requestId}}))
}

async function serve(rt: Runtime, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const started = performance.now()
  const url = req.url ?? '/'
  const q = url.indexOf('?')
  const method = req.method ?? 'GET'
  let raw = EMPTY
  if (method !== 'GET' && method !== 'HEAD') {
    const declared = Number(req.headers['content-length'])
    const read = declared > MAX_BODY_BYTES ? TOO_LARGE : await readBody(req)
    if (read === TOO_LARGE) {
      tooLarge(res)
      logRequest(rt, req, method, url, {status: 413, headers: {}, body: ''}, EMPTY, started)
      return
    }
    raw = read
  }
  const sb: SbRequest = {
    method,
    path: q === -1 ? url : url.slice(0, q),
    query: q === -1 ? {} : parseQuery(url.slice(q + 1)),
    headers: req.headers,
    raw,
    ip: req.socket.remoteAddress ?? '',
  }
  let out: SbResponse
  try {
    out = await dispatch(rt, sb)
  } catch (err) {
    out = errorResponse(err, newRequestId(), {}, undefined, rt.core.baseUrl)
  }
  if (out.drop) req.socket.destroy()
  else {
    // a Content-Length (rather than chunked encoding): one write per answer
    out.headers['content-length'] = String(Buffer.byteLength(out.body))
    res.writeHead(out.status, out.headers)
    res.end(method === 'HEAD' ? undefined : out.body)
  }
  if (!sb.path.startsWith('/_sandbox/')) logRequest(rt, req, method, url, out, raw, started)
}

function logRequest(rt: Runtime, req: IncomingMessage, method: string, url: string, out: SbResponse, raw: Buffer, started: number): void {
  rt.log.add({
    time: Date.now(),
    request_id: out.requestId ?? null,
    method,
    url: url.length > 4096 ? url.slice(0, 4096) : url,
    headers: req.headers,
    parsed: out.logBody,
    raw: out.logBody === undefined ? keptBody(raw) : undefined,
    status: out.drop ? 0 : out.status,
    ...(out.drop ? {dropped: true} : {}),
    duration_ms: Math.round((performance.now() - started) * 100) / 100,
  })
}
