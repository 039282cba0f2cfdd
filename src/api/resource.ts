/**
 * Which resource an answer of the service is about. Payouts, mandates, debits and subscriptions can only be looked
 * up by merchant reference (the contract has no get by id for them), and a reference may name more than one of them
 * (a second one sent on purpose with --force-new): a lookup then answers the one the service picks (the sandbox: the
 * newest), which need not be the one a request created. Every path that takes a state from a lookup asks
 * `otherResource` first and never reports the other resource's state as its own: --wait (src/operation/wait.ts), a
 * re-run's look-up of an accepted request (src/operation/run-operation.ts), a bulk row's --wait (src/bulk/send.ts)
 * the journal's latest seen state (src/journal/gate.ts) and a reconciled row (src/reconcile/expected.ts). docs/assumptions.md: "A lookup that answers another
 * resource".
 */

/** The name an answer gives its resource: its id, else its merchant_reference (a mandate's create answer has no id). */
export function resourceName(body: unknown): string | undefined {
  const b = body as {id?: unknown; merchant_reference?: unknown} | undefined
  return typeof b?.id === 'string' ? b.id : typeof b?.merchant_reference === 'string' ? b.merchant_reference : undefined
}

/**
 * The id of the other resource a looked-up answer is about, when it is not the one named `mine` (the resourceName of
 * the answer that accepted the request); undefined when it is that one, or when nothing tells them apart (no name
 * known, an answer without an id, or `mine` is the reference itself because the accepted answer gave no id).
 */
export function otherResource(mine: string | null | undefined, body: unknown): string | undefined {
  if (!mine) return undefined
  const b = body as {id?: unknown; merchant_reference?: unknown} | undefined
  if (typeof b?.id !== 'string' || b.id === mine || b.merchant_reference === mine) return undefined
  return b.id
}
