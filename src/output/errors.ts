/**
 * Renders any failure: the human text on stderr, and under --json the error envelope on stdout.
 * Returns the exit code. PayErrors are recognised by shape, not instanceof, so that a bundled copy of the
 * runtime and the command files agree.
 */
import type {Output} from './output.js'
import {printable} from './printable.js'

interface PayErrorLike {
  message: string
  exitCode: number
  hint?: string
  toJSON(): Record<string, unknown>
  status?: number
  error?: {code: string; message: string; request_id?: string; doc_url?: string}
  problems?: {flag: string; rule: string}[]
  /** Set when the outcome of an idempotent request is unknown (src/journal/gate.ts). */
  idempotencyKey?: string
  resumeCommand?: string
}

export function isPayError(err: unknown): err is PayErrorLike {
  return err instanceof Error && typeof (err as {exitCode?: unknown}).exitCode === 'number' && typeof (err as {toJSON?: unknown}).toJSON === 'function'
}

export function renderError(out: Output, err: unknown, commandId?: string): number {
  // every piece may come from the network (a message, a code, a request id): made printable, then coloured
  // (errorLine makes its text printable itself)
  const p = printable
  if (!isPayError(err)) {
    const message = err instanceof Error ? err.message : String(err)
    if (out.json) out.data(JSON.stringify({error: {code: 'cli_error', message}}))
    out.errorLine(message)
    return 1
  }
  if (out.json) out.data(JSON.stringify(withResume(err)))
  if (err.problems) {
    for (const problem of err.problems) out.errorLine(`${problem.flag} ${problem.rule}`)
  } else if (err.error && err.status !== undefined) {
    out.errorLine(err.error.message)
    const facts = [`code: ${err.error.code}`, `status: ${err.status}`]
    if (err.error.request_id) facts.push(`request_id: ${err.error.request_id}`)
    out.info(p(`  ${facts.join('   ')}`))
    if (err.error.doc_url) out.info(p(`  docs: ${err.error.doc_url}`))
  } else out.errorLine(err.message)
  if (err.idempotencyKey) out.info(`  idempotency key: ${err.idempotencyKey}${err.resumeCommand ? `   resume: ${p(err.resumeCommand)}` : ''}`)
  if (err.hint) out.info(`  ${out.color('cyan', 'next:', 'err')} ${p(err.hint)}`)
  else if (err.problems && commandId) out.info(`  ${out.color('cyan', 'next:', 'err')} see \`pay ${commandId.replace(/:/g, ' ')} --help\``)
  return err.exitCode
}

/** The error envelope, with idempotency_key and resume_command when the outcome is unknown. */
function withResume(err: PayErrorLike): Record<string, unknown> {
  const envelope = err.toJSON()
  if (!err.idempotencyKey) return envelope
  const inner = envelope.error && typeof envelope.error === 'object' ? (envelope.error as Record<string, unknown>) : {}
  return {...envelope, error: {...inner, idempotency_key: err.idempotencyKey, resume_command: err.resumeCommand}}
}
