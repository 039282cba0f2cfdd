// What the CLI's transport (src/client/transport.ts) takes from undici, without undici's index.js, which loads
// fetch, WebSocket, EventSource, cookies, the mock agents and the cache stores on require: bundled into
// dist/runtime.js in place of 'undici' by scripts/bundle.mjs (for transport.ts only). request() is undici's own
// api.request on the given dispatcher, as undici's makeDispatcher() calls it for a URL string (the transport
// always passes one, with a dispatcher). scripts/bundle.mjs checks these names against what transport imports.
import api from 'undici/lib/api/index.js'
import errors from 'undici/lib/core/errors.js'
import util from 'undici/lib/core/util.js'
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js'
import EnvHttpProxyAgent from 'undici/lib/dispatcher/env-http-proxy-agent.js'

// As undici's index.js does: every dispatcher gets request(), connect(), stream()… (ProxyAgent needs connect()).
Object.assign(Dispatcher.prototype, api)

export function request(url, opts) {
  if (!opts || typeof opts !== 'object' || !opts.dispatcher || opts.path != null) {
    throw new errors.InvalidArgumentError('the bundled undici request() needs a URL and opts with a dispatcher and no path')
  }
  const parsed = util.parseURL(url)
  return opts.dispatcher.request({
    ...opts,
    origin: parsed.origin,
    path: parsed.search ? `${parsed.pathname}${parsed.search}` : parsed.pathname,
    method: opts.method || (opts.body ? 'PUT' : 'GET'),
  })
}

export {EnvHttpProxyAgent}
