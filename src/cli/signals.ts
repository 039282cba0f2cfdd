/**
 * Settles at the first SIGINT or SIGTERM: how a long-running command is told to stop. Its handlers are removed
 * after that signal's other handlers ran: a library's handler that re-raises the signal when it sees no other one
 * (signal-exit, loaded with conf when a profile is saved) would otherwise kill the process before it stopped.
 */
export function untilSignal(): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => {
      setImmediate(() => {
        process.off('SIGINT', stop)
        process.off('SIGTERM', stop)
      })
      resolve()
    }
    process.on('SIGINT', stop)
    process.on('SIGTERM', stop)
  })
}
