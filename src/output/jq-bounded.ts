/**
 * --jq under a time and a memory bound. jq-web runs jq compiled to WebAssembly; a program such as `repeat(1)` or
 * `[range(1e9)]` never ends and grows without limit (in-process it took the process to a V8 fatal error, a core
 * dump holding the token, or a stray "Aborted()"). So jq runs in a worker thread (loaded only when --jq is given)
 * with V8 heap limits, and the main thread waits for each answer synchronously (Atomics.wait on a shared flag, the
 * answer read with receiveMessageOnPort: the output pipeline stays synchronous), checking every WAIT_SLICE_MS that
 * the time bound has not passed and that the process has not grown by more than the memory bound (jq's own
 * WebAssembly memory is outside V8's heap limits, so the process's RSS is what is watched). Past either bound the
 * worker is terminated and the command ends with exit 2 naming the flag that raises the bound.
 */
import {once} from 'node:events'
import {createRequire} from 'node:module'
import {MessageChannel, receiveMessageOnPort, Worker} from 'node:worker_threads'
import {PayError} from '../base/errors.js'
import {ExitCode} from '../base/exit-codes.js'
import {DEFAULT_JQ_MEMORY_MB, DEFAULT_JQ_TIMEOUT_SECONDS} from './options.js'

const WAIT_SLICE_MS = 25

/**
 * The worker (CommonJS, given as text: it then runs the same from the sources and from the build): jq-web loaded
 * once, each program run on the input posted, the answer posted back and the shared flag raised. What jq-web prints
 * of its own ("Aborted()" when its memory cannot grow) is dropped: jq's errors come back with each answer.
 */
const WORKER = `
const {workerData, parentPort} = require('node:worker_threads')
const {port, flag, jqWeb} = workerData
console.log = console.warn = console.error = () => undefined
require(jqWeb).then((jq) => {
  port.on('message', (job) => {
    let answer
    try {
      answer = {result: jq.raw(job.input, job.filter, job.flags) ?? ''}
    } catch (err) {
      answer = {error: {message: String(err && err.message !== undefined ? err.message : err), stderr: err && typeof err.stderr === 'string' ? err.stderr : undefined}}
    }
    port.postMessage(answer)
    Atomics.store(flag, 0, 1)
    Atomics.notify(flag, 0)
  })
  parentPort.postMessage('ready')
})
`

interface JqLimits {
  timeoutSeconds?: number
  memoryMb?: number
}

interface BoundedJq {
  /** jq's output for one input document; throws jq's error (with its stderr), or a PayError (exit 2) past a bound. */
  raw(input: string, filter: string, flags?: string[]): string
}

export async function boundedJq(limits: JqLimits = {}): Promise<BoundedJq> {
  const timeoutMs = (limits.timeoutSeconds ?? DEFAULT_JQ_TIMEOUT_SECONDS) * 1000
  const memoryMb = limits.memoryMb ?? DEFAULT_JQ_MEMORY_MB
  const flag = new Int32Array(new SharedArrayBuffer(4))
  const {port1, port2} = new MessageChannel()
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: {port: port2, flag, jqWeb: createRequire(import.meta.url).resolve('jq-web')},
    transferList: [port2],
    // V8's heap of the thread above the memory bound: the bound watched below ends it first, this is the backstop
    resourceLimits: {maxOldGenerationSizeMb: memoryMb * 2, maxYoungGenerationSizeMb: 64},
  })
  worker.unref()
  port1.unref()
  await once(worker, 'message')
  let dead = false

  const stop = (why: string, flagName: string): never => {
    dead = true
    void worker.terminate()
    throw new PayError(`--jq ${why}: stopped`, ExitCode.USAGE, `raise the bound with ${flagName} if the program is meant to, or fix the program (an endless one such as repeat(1) never ends)`)
  }

  return {
    raw(input, filter, flags) {
      if (dead) throw new PayError('--jq was stopped earlier in this command', ExitCode.USAGE)
      Atomics.store(flag, 0, 0)
      port1.postMessage({input, filter, flags})
      const started = performance.now()
      const baseline = process.memoryUsage.rss()
      const withinBounds = () => {
        if (performance.now() - started > timeoutMs) stop(`took longer than ${timeoutMs / 1000} s`, '--jq-timeout SECONDS')
        if (process.memoryUsage.rss() - baseline > memoryMb * 1024 * 1024) stop(`used more than ${memoryMb} MB`, '--jq-memory MB')
      }
      while (Atomics.wait(flag, 0, 0, WAIT_SLICE_MS) === 'timed-out') withinBounds()
      // the answer was posted before the flag was raised; a large one may take a while to arrive (a loaded machine):
      // it is waited for under the same bounds, not a fixed time of its own
      let answer = receiveMessageOnPort(port1)
      while (answer === undefined) {
        Atomics.wait(flag, 0, 1, 5) // flag stays 1: a short sleep
        withinBounds()
        answer = receiveMessageOnPort(port1)
      }
      const {result, error} = answer!.message as {result?: string; error?: {message?: string; stderr?: string}}
      if (error) throw Object.assign(new Error(error.message), error.stderr === undefined ? {} : {stderr: error.stderr})
      return result ?? ''
    },
  }
}
