/**
 * How a tool call's output becomes its result: the operation runs with an Output held in memory, the body (or the
 * pages of --all) it printed becomes the structured content, and a failure becomes a tool error with the command
 * line's envelope. src/mcp/server.ts calls these for every tool.
 */
import {Writable} from 'node:stream'
import type {CallToolResult} from '@modelcontextprotocol/sdk/types.js'
import {exitClassOf} from '../base/exit-codes.js'
import {printable} from '../output/printable.js'
import * as rt from '../runtime.js'
import type {ArgumentProblem, ToolSpec} from './tools.js'

/** No one to ask: the server's stdio is the agent's, and a tool never prompts (not on /dev/tty either). */
const TERM: rt.Output['term'] = {stdoutIsTTY: false, stderrIsTTY: false, stdinIsTTY: false, color: false, colorErr: false, interactive: false, noInput: true, columns: 100}

/** An Output whose stdout and stderr are strings; the error lines said (errorLine) are kept apart as well. */
export function memoryOutput(): {out: rt.Output; stdout: () => string; stderr: () => string; errors: () => string[]} {
  let stdout = ''
  let stderr = ''
  const errors: string[] = []
  const sink = (add: (s: string) => void) =>
    new Writable({
      write(chunk: Buffer | string, _enc, done) {
        add(String(chunk))
        done()
      },
    })
  const out = new (class extends rt.Output {
    override errorLine(line: string): void {
      errors.push(printable(line))
      super.errorLine(line)
    }
  })(TERM, true, sink((s) => (stdout += s)), sink((s) => (stderr += s)))
  return {out, stdout: () => stdout, stderr: () => stderr, errors: () => errors}
}

export const text = (t: string) => ({type: 'text' as const, text: t})

/** A tool error: the envelope's error (code, message, request_id, …) as structured content, and as text. */
export function errorResult(error: Record<string, unknown>, lines: string[]): CallToolResult {
  return {isError: true, content: [text([`${String(error.code)}: ${String(error.message)}`, ...lines].join('\n'))], structuredContent: {error}}
}

/**
 * An operation that was answered but comes to a non-zero exit on the command line (README: Exit codes): a transaction
 * that ended failed (a create answered `failed`, or a wait that ended so: 8), a wait that timed out or could not be
 * followed (9). A tool error like every other: `code` the exit code's name (`tx_failed`, `wait_timeout`), `message`
 * the command line's error line(s), `exit_code`, the resource's `state` and the service's reason (`status_detail`);
 * the last answer, which the command line prints on stdout, is `answer`.
 */
export function endedResult(exitCode: number, answer: Record<string, unknown>, said: string[], lines: string[]): CallToolResult {
  const message = said.join('\n') || `the command line exits ${exitCode} here`
  const state = typeof answer.status === 'string' ? {state: answer.status} : {}
  const detail = typeof answer.status_detail === 'string' ? {status_detail: answer.status_detail} : {}
  const error = {code: exitClassOf(exitCode) ?? 'cli_error', message, exit_code: exitCode, ...state, ...detail}
  const result = errorResult(error, [JSON.stringify(answer), ...lines])
  return {...result, structuredContent: {error, answer}}
}

/** Problems with the arguments: the tool's field names and rules, nothing sent. */
export function inputErrorResult(tool: ToolSpec, problems: ArgumentProblem[]): CallToolResult {
  const message = problems.map((p) => `${p.field} ${p.rule}`).join('\n')
  return errorResult({code: 'invalid_input', message, problems, sent: false}, [`Nothing was sent. See the input schema of ${tool.name}.`])
}

/** The body (or bodies: one per page, one per line) the operation printed, as one object. */
export function structuredOf(stdout: string): Record<string, unknown> {
  const asObject = (v: unknown) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {value: v})
  try {
    // one body, as the service sent it (which may span lines)
    return asObject(JSON.parse(stdout))
  } catch {
    // --all: one body per page, one per line; their rows together
    const docs = stdout
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as {data?: unknown[]})
    return {data: docs.flatMap((d) => d?.data ?? []), pages: docs.length}
  }
}
