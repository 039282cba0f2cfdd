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
import {reportBug} from './faults.js'
import {errorResponse, handleApi} from './router.js'
import {DASHBOARD_PATH, type Runtime} from './runtime.js'

const EMPTY: Buffer = Buffer.alloc(0)
const TOO_LARGE = Symbol('too large')

/**
 * Reads the body and calls `done` with it, or with TOO_LARGE as soon as it passes MAX_BODY_BYTES (the rest is
 * not kept). Listeners, not a promise: the common request is answered in the 'end' event, as node:http does.
 */
function readBody(req: IncomingMessage, done: (body: Buffer | typeof TOO_LARGE) => void, failed: (err: Error) => void): void {
  let first: Buffer | undefined
  let chunks: Buffer[] | undefined
  let size = 0
  const onData = (c: Buffer) => {
    size += c.length
    if (size > MAX_BODY_BYTES) {
      req.off('data', onData)
      req.pause()
      done(TOO_LARGE)
      return
    }
    if (first === undefined) first = c
    else (chunks ??= [first]).push(c)
  }
  req.on('data', onData)
  let settled = false
  req.on('end', () => {
    if (size > MAX_BODY_BYTES) return
    settled = true
    done(chunks ? Buffer.concat(chunks) : (first ?? EMPTY))
  })
  req.on('error', (err) => {
    if (!settled && size <= MAX_BODY_BYTES) failed(err) // an error once the body is in (or refused) changes nothing
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

function dispatch(rt: Runtime, sb: SbRequest): SbResponse | Promise<SbResponse> {
  const p = sb.path
  if (p.startsWith('/v1/')) return handleApi(rt, sb)
  if (p.startsWith('/_sandbox/')) return handleControl(rt, sb)
  if (p.startsWith('/pay/')) return handlePayPage(rt, sb)
  if (p === '/' || p === '') return jsonResponse(200, {object: 'sandbox', name: 'Payments Service sandbox', version: '1.0', docs: 'docs/sandbox.md'})
  return jsonResponse(404, {error: {code: 'not_found', message: `no endpoint ${sb.method} ${p.length > 200 ? p.slice(0, 200) + '…' : p}`}})
}

export {scheduling} from './resources/index.js'

/** Answers one request; never throws (a bug is answered 500 and logged). Synchronous unless a handler waits. */
export function handle(rt: Runtime, req: IncomingMessage, res: ServerResponse): void {
  try {
    serve(rt, req, res)
  } catch (err) {
    internalError(res, err)
  }
}

/** The last line of defence: a bug anywhere in request handling is answered 500 (when still possible) and logged. */
function internalError(res: ServerResponse, err: unknown): void {
  reportBug('sandbox bug:', err)
  if (res.headersSent) {
    res.destroy()
    return
  }
  const requestId = newRequestId()
  res.writeHead(500, {'content-type': 'application/json; charset=utf-8', 'x-request-id': requestId})
  res.end(JSON.stringify({error: {code: 'internal_error', message: 'sandbox bug: the request could not be handled (see the sandbox output)', request_id: requestId}}))
}

function serve(rt: Runtime, req: IncomingMessage, res: ServerResponse): void {
  const started = performance.now()
  const method = req.method ?? 'GET'
  if (method === 'GET' || method === 'HEAD') {
    answer(rt, req, res, method, EMPTY, started)
    return
  }
  const onBody = (read: Buffer | typeof TOO_LARGE) => {
    try {
      if (read !== TOO_LARGE) answer(rt, req, res, method, read, started)
      else {
        tooLarge(res)
        logRequest(rt, req, method, req.url ?? '/', {status: 413, headers: {}, body: ''}, EMPTY, started)
      }
    } catch (err) {
      internalError(res, err)
    }
  }
  if (Number(req.headers['content-length']) > MAX_BODY_BYTES) onBody(TOO_LARGE)
  else readBody(req, onBody, (err) => internalError(res, err))
}

function answer(rt: Runtime, req: IncomingMessage, res: ServerResponse, method: string, raw: Buffer, started: number): void {
  const url = req.url ?? '/'
  const q = url.indexOf('?')
  const sb: SbRequest = {
    method,
    path: q === -1 ? url : url.slice(0, q),
    query: q === -1 ? {} : parseQuery(url.slice(q + 1)),
    headers: req.headers,
    raw,
    ip: req.socket.remoteAddress ?? '',
  }
  if (sb.path.startsWith(DASHBOARD_PATH)) {
    dashboard(rt, sb, req, res)
    return
  }
  let out: SbResponse | Promise<SbResponse>
  try {
    out = dispatch(rt, sb)
  } catch (err) {
    out = errorResponse(err, newRequestId(), {}, undefined, rt.core.baseUrl)
  }
  if (out instanceof Promise) {
    out
      .catch((err: unknown) => errorResponse(err, newRequestId(), {}, undefined, rt.core.baseUrl))
      .then((o) => send(rt, req, res, method, url, sb, o, started))
      .catch((err: unknown) => internalError(res, err))
  } else send(rt, req, res, method, url, sb, out, started)
}

let dashboardModule: Promise<typeof import('./dashboard/index.js')> | undefined

/**
 * /_dashboard…: the dashboard module is loaded on its first request (nothing of it at start-up or on the request
 * path of /v1); it writes its own answers (pages, a live stream) and is not in the request log.
 */
function dashboard(rt: Runtime, sb: SbRequest, req: IncomingMessage, res: ServerResponse): void {
  if (!rt.dashboard || (sb.path !== DASHBOARD_PATH && sb.path[DASHBOARD_PATH.length] !== '/')) {
    const out = jsonResponse(404, {error: {code: 'not_found', message: rt.dashboard ? `no page ${sb.path.slice(0, 200)}` : 'the dashboard is off (pay sandbox start --no-dashboard)'}})
    res.writeHead(404, {...out.headers, 'content-length': String(Buffer.byteLength(out.body))}).end(out.body)
    return
  }
  ;(dashboardModule ??= import('./dashboard/index.js')).then((m) => m.serveDashboard(rt, sb, req, res)).catch((err: unknown) => internalError(res, err))
}

function send(rt: Runtime, req: IncomingMessage, res: ServerResponse, method: string, url: string, sb: SbRequest, out: SbResponse, started: number): void {
  if (out.drop) req.socket.destroy()
  else {
    // a Content-Length (rather than chunked encoding): one write per answer
    out.headers['content-length'] = String(Buffer.byteLength(out.body))
    res.writeHead(out.status, out.headers)
    res.end(method === 'HEAD' ? undefined : out.body)
  }
  if (!sb.path.startsWith('/_sandbox/')) logRequest(rt, req, method, url, out, sb.raw, started)
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
    dropped: out.drop ? true : undefined,
    duration_ms: Math.round((performance.now() - started) * 100) / 100,
  })
  rt.activity?.()
}
