/**
 * A body in structured output (`--json`): a delivery's as `pay webhook show` prints it, a receiver's answer as
 * `pay webhook trigger` prints it. Its JSON value when it parses, else the text as it came.
 */
export function bodyView(body: string | Buffer): unknown {
  const text = typeof body === 'string' ? body : body.toString('utf8')
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}
