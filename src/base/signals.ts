/**
 * SIGINT and SIGTERM as values: how a long-running command (a listener, a sandbox, a --wait) is told to stop.
 * Handlers are removed after that signal's other handlers ran: a library's handler that re-raises the signal when
 * it sees no other one (signal-exit, loaded with conf when a profile is saved) would otherwise kill the process
 * before it stopped.
 */

/** How many firstSignal() listen now. */
let listening = 0

/** Whether some firstSignal() listens: a signal now ends what it waits for (a --wait), not the process. */
export function signalAwaited(): boolean {
  return listening > 0
}

/** The first SIGINT or SIGTERM from now on (`signal`), until `dispose()` stops listening. */
export function firstSignal(): {signal: Promise<NodeJS.Signals>; dispose(): void} {
  let settle: (signal: NodeJS.Signals) => void = () => undefined
  const signal = new Promise<NodeJS.Signals>((resolve) => (settle = resolve))
  let disposed = false
  const dispose = () => {
    if (!disposed) listening--
    disposed = true
    process.off('SIGINT', stop)
    process.off('SIGTERM', stop)
  }
  const stop = (name: NodeJS.Signals) => {
    setImmediate(dispose)
    settle(name)
  }
  listening++
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
  return {signal, dispose}
}

/** Settles at the first SIGINT or SIGTERM. */
export async function untilSignal(): Promise<void> {
  await firstSignal().signal
}
