/**
 * Request handling: reads the request, dispatches (/v1, /pay, /_sandbox), answers, logs.
 * index.ts loads this module (and with it zod, the endpoint table and the resources) in the background while the
 * server starts listening, so start-up does not wait for it.
 */
import type {IncomingMessage, ServerResponse} from 'node:http'
import {handleControl} from './control-api.js'
import {type SbRequest, type SbResponse, jsonResponse, parseQuery} from './http.js'
import {handlePayPage} from './pay-page.js'
import {redactBody, redactHeaders} from './request-log.js'
import {handleApi} from './router.js'
import type {Runtime} from './runtime.js'

const EMPTY: Buffer = Buffer.alloc(0)
const MAX_BODY = 1 << 20

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (c: Buffer) => {
      size += c.length
      if (size > MAX_BODY) {
        reject(new Error('body too large'))
        req.destroy()
        return
      }
      chunks.push(c)
    })
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)))
    req.on('error', reject)
  })
}

async function dispatch(rt: Runtime, sb: SbRequest): Promise<SbResponse> {
  const p = sb.path
  if (p.startsWith('/v1/')) return handleApi(rt, sb)
  if (p.startsWith('/_sandbox/')) return handleControl(rt, sb)
  if (p.startsWith('/pay/')) return handlePayPage(rt, sb)
  if (p === '/' || p === '') return jsonResponse(200, {object: 'sandbox', name: 'Payments Service sandbox', version: '1.0', docs: 'docs/sandbox.md'})
  return jsonResponse(404, {error: {code: 'not_found', message: `no endpoint ${sb.method} ${p}`}})
}

export {tickers} from './resources/index.js'

export async function handle(rt: Runtime, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const started = performance.now()
  const url = req.url ?? '/'
  const q = url.indexOf('?')
  const method = req.method ?? 'GET'
  let raw = EMPTY
  try {
    if (method !== 'GET' && method !== 'HEAD') raw = await readBody(req)
  } catch {
    res.writeHead(413, {'content-type': 'application/json'}).end('{"error":{"code":"invalid_parameter","message":"body too large"}}')
    return
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
    out = jsonResponse(500, {error: {code: 'internal_error', message: err instanceof Error ? err.message : String(err)}})
  }
  if (out.drop) req.socket.destroy()
  else {
    res.writeHead(out.status, out.headers)
    res.end(method === 'HEAD' ? undefined : out.body)
  }
  if (!sb.path.startsWith('/_sandbox/')) {
    let body: unknown = out.logBody
    if (body === undefined && raw.length > 0) {
      const text = raw.toString('utf8')
      if (/^application\/x-www-form-urlencoded/i.test(req.headers['content-type'] ?? '')) body = Object.fromEntries(new URLSearchParams(text))
      else body = text.length > 4096 ? text.slice(0, 4096) + '…' : text
    }
    rt.log.add({
      time: new Date().toISOString(),
      request_id: out.requestId ?? null,
      method,
      path: sb.path,
      query: sb.query,
      headers: redactHeaders(req.headers),
      body: redactBody(body),
      status: out.drop ? 0 : out.status,
      ...(out.drop ? {dropped: true} : {}),
      duration_ms: Math.round((performance.now() - started) * 100) / 100,
    })
  }
}
