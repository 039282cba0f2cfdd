/**
 * Waiting on a condition instead of sleeping for a guessed time: `check` is polled until it gives a truthy value,
 * which is returned; past `timeoutMs` the wait fails naming what it waited for.
 */
export async function waitFor<T>(check: () => T | Promise<T>, timeoutMs = 10_000, what = 'condition', everyMs = 20): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value) return value as NonNullable<T>
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, everyMs))
  }
}
