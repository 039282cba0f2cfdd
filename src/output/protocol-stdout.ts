/**
 * stdout for a protocol spoken over it (`pay mcp`): the returned stream writes to the process's stdout, and from
 * then on anything else that writes to process.stdout goes to stderr instead, so the protocol's stream stays clean.
 */
import {Writable} from 'node:stream'

export function takeStdoutForProtocol(): Writable {
  const protocolOut = process.stdout
  const write = protocolOut.write.bind(protocolOut)
  const protocol = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      if (write(chunk)) done()
      else protocolOut.once('drain', () => done())
    },
  })
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write
  return protocol
}
