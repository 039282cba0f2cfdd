/**
 * Loopback addresses: the only hosts credentials may reach over plain http://, where a local sandbox may be, and what
 * `pay mcp` does not count as live. The literal addresses (127.0.0.0/8, ::1) and the name `localhost` only: RFC 6761
 * says every `*.localhost` name is loopback too, but whether it is depends on the resolver of the machine (a DNS
 * server may answer any address for it), so such a name is treated as any remote host (docs/assumptions.md). No
 * dependencies.
 */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase()
  return h === 'localhost' || h === '::1' || /^127(\.[0-9]{1,3}){3}$/.test(h)
}

export function isLoopbackUrl(url: string): boolean {
  try {
    return isLoopbackHost(new URL(url).hostname)
  } catch {
    return false
  }
}
