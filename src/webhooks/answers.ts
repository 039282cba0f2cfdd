/**
 * How the listener answers senders and shows deliveries, in order: a delivery is durable in the history before its
 * answer goes out, and while the deliveries read in one turn of the event loop are judged together, their answers
 * and shown deliveries wait, so that no answer's system call cuts the judging of the next.
 *
 * Why a turn's deliveries are judged together (measured as a whole process, test/bench/webhook-listener.mjs, paired
 * runs; docs/performance.md): their verifications, parses and answers then run one after the other rather than
 * each between the system calls of the others' reads and answers, which costs several µs of CPU a delivery less.
 */
import type {ServerResponse} from 'node:http'
import type {HistoryWriter} from './history.js'

/** An answer every delivery may get, its JSON text and headers made once. */
class MadeAnswer {
  readonly text: string
  /** As a flat [name, value, …] list, which node:http's writeHead takes as it is. */
  readonly headers: string[]

  constructor(body: unknown) {
    this.text = JSON.stringify(body)
    this.headers = ['content-type', 'application/json', 'content-length', String(Buffer.byteLength(this.text))]
  }
}
export const RECEIVED = new MadeAnswer({received: true})
export const DUPLICATE = new MadeAnswer({received: true, duplicate: true})
export const FILTERED = new MadeAnswer({received: true, filtered: true})
/** The status of the answer to what was never meant to happen (Answers.failed). */
export const FAILED_STATUS = 500

type Held<D> = {res: ServerResponse; status: number; body: unknown; close: boolean} | {res: undefined; delivery: D}

export interface Answers<D> {
  /** A JSON answer: `body` is JSON.stringify'd, unless it is a MadeAnswer. `close`: with Connection: close. */
  reply(res: ServerResponse, status: number, body: unknown, close?: boolean): void
  /** The --forward-to app's answer, passed back as it came. */
  passBack(res: ServerResponse, status: number, headers: Record<string, string>, body: Buffer): void
  /** A delivery shown (after the answers before it). */
  show(delivery: D): void
  /** A 500 for what was never meant to happen: answered, and the listener carries on. */
  failed(res: ServerResponse, err: Error): void
  /** Runs `judgeAll` with every answer and shown delivery held, then sends and shows them once they are kept. */
  together(judgeAll: () => void): void
}

/**
 * `history`: kept before any answer. `onDelivery`: each delivery shown, guarded (a rendering problem never takes
 * the listener down).
 */
export function createAnswers<D>(history: HistoryWriter | undefined, onDelivery: ((d: D) => void) | undefined): Answers<D> {
  let held: Held<D>[] | undefined

  const send = (res: ServerResponse, status: number, body: unknown, close: boolean) => {
    if (res.headersSent || res.destroyed) return
    if (body instanceof MadeAnswer && !close) {
      res.writeHead(status, body.headers)
      res.end(body.text)
      return
    }
    const text = body instanceof MadeAnswer ? body.text : JSON.stringify(body)
    res.writeHead(status, close ? {'content-type': 'application/json', 'content-length': Buffer.byteLength(text), connection: 'close'} : {'content-type': 'application/json', 'content-length': Buffer.byteLength(text)})
    res.end(text)
  }
  const display = (d: D) => {
    try {
      onDelivery?.(d)
    } catch {
      // a rendering problem must never take the listener down
    }
  }
  const afterCommit = (then: () => void) => {
    if (history?.pending) history.afterCommit(then)
    else then()
  }

  const answers: Answers<D> = {
    reply(res, status, body, close = false) {
      if (held) held.push({res, status, body, close})
      else afterCommit(() => send(res, status, body, close))
    },
    passBack(res, status, headers, body) {
      afterCommit(() => {
        if (!res.headersSent && !res.destroyed) {
          res.writeHead(status, {'content-type': 'application/octet-stream', ...headers, 'content-length': body.length})
          res.end(body)
        }
      })
    },
    show(d) {
      if (held) held.push({res: undefined, delivery: d})
      else display(d)
    },
    failed: (res, err) => answers.reply(res, FAILED_STATUS, {error: {code: 'listener_error', message: err.message}}),
    together(judgeAll) {
      const out: Held<D>[] = (held = [])
      try {
        judgeAll()
      } finally {
        // whatever happened in there, later answers are never held
        held = undefined
      }
      // the batch's deliveries are durable before any of its answers goes out (one sync for the whole batch)
      afterCommit(() => release(out))
    },
  }

  function release(out: Held<D>[]): void {
    for (const item of out) {
      if (item.res === undefined) display(item.delivery)
      else {
        try {
          send(item.res, item.status, item.body, item.close)
        } catch (err) {
          // the next ones still go out
          answers.failed(item.res, err as Error)
        }
      }
    }
  }
  return answers
}
