/**
 * Who may drive the sandbox from a browser. The control API (/_sandbox/) has no authentication: a page of any other
 * site must not be able to use it through a visitor's browser (a form POSTed across sites, a script's fetch), nor
 * the dashboard's actions (/_dashboard/). Browsers say where a request comes from (Sec-Fetch-Site, Origin); the CLI,
 * tests and scripts send neither and are not affected. The dashboard adds the loopback rules below and a token.
 */
import type {IncomingHttpHeaders} from 'node:http'
import {isLoopbackHost} from '../client/loopback.js'

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v)

/**
 * Why a request is refused as cross-site, or undefined when it is not: Sec-Fetch-Site other than same-origin or
 * none (typed in the address bar), or an Origin other than this server's own (http://<Host>). `null` origins
 * (sandboxed frames, file: pages) are refused too.
 */
export function crossSite(headers: IncomingHttpHeaders): string | undefined {
  const site = one(headers['sec-fetch-site'])
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return `a ${site} request (Sec-Fetch-Site)`
  const origin = one(headers.origin)
  if (origin === undefined) return undefined
  const host = one(headers.host)
  if (host === undefined || origin.toLowerCase() !== `http://${host.toLowerCase()}`) return `a request from another origin (${origin.length > 100 ? origin.slice(0, 100) + '…' : origin})`
  return undefined
}

/** A peer address on this machine (127.0.0.0/8, ::1, and IPv4 loopback mapped into IPv6). */
export function isLoopbackAddress(ip: string): boolean {
  return isLoopbackHost(ip.startsWith('::ffff:') ? ip.slice(7) : ip)
}

/** The host name of a Host header (no port), when it names this machine: a rebound DNS name does not. */
export function isLoopbackHostHeader(host: string | string[] | undefined): boolean {
  const h = one(host)
  if (!h) return false
  const name = h.startsWith('[') ? h.slice(0, h.indexOf(']') + 1) : h.replace(/:[0-9]*$/, '')
  return isLoopbackHost(name)
}
