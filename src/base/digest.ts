/**
 * sha256 and random UUIDs for what a command does at start-up (the token-cache key, the journal's request match,
 * a write's Idempotency-Key) without loading node:crypto, which costs a command ~3.5 ms of CPU to load: sha256 in
 * JS (@noble/hashes, audited, already the token cache's), random bytes from the OS's random device, the source
 * node:crypto itself draws from. Where there is no such device (Windows) node:crypto is loaded after all.
 */
import {sha256} from '@noble/hashes/sha2.js'
import {bytesToHex, utf8ToBytes} from '@noble/hashes/utils.js'
import {closeSync, openSync, readSync} from 'node:fs'

/** The sha256 of a string's UTF-8 bytes, in hex. */
export function sha256Hex(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text)))
}

/** `n` random bytes from /dev/urandom, or undefined when it cannot be read. */
function osRandomBytes(n: number): Uint8Array | undefined {
  if (process.platform === 'win32') return undefined
  let fd: number | undefined
  try {
    fd = openSync('/dev/urandom', 'r')
    const bytes = new Uint8Array(n)
    let got = 0
    while (got < n) {
      const read = readSync(fd, bytes, got, n - got, null)
      if (read <= 0) return undefined
      got += read
    }
    return bytes
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/** A random (version 4, RFC 9562) UUID, as crypto.randomUUID() makes. */
export function randomUUID(): string {
  const b = osRandomBytes(16)
  if (!b) return process.getBuiltinModule('node:crypto').randomUUID()
  b[6] = (b[6] & 0x0f) | 0x40 // version 4
  b[8] = (b[8] & 0x3f) | 0x80 // variant 10
  const hex = bytesToHex(b)
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/** A UUID-shaped (version 4 layout) key from a hex digest of at least 32 digits: the same digest, the same key. */
export function uuidOfHex(h: string): string {
  const variant = ((Number.parseInt(h[16], 16) & 3) | 8).toString(16)
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`
}
