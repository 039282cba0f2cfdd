/**
 * Progress of a long operation (--wait) on stderr, never stdout. On a terminal one line is redrawn in place
 * with a spinner and the elapsed time; otherwise (logs, CI, pipes) a line is printed only when the text
 * changes, so a log shows each state once.
 */
import type {Output} from './output.js'
import {printableLine} from './printable.js'

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']

export class Progress {
  private text = ''
  private frame = 0
  private timer?: NodeJS.Timeout
  private readonly started = Date.now()
  private readonly live: boolean

  constructor(
    private readonly out: Output,
    private readonly stream: NodeJS.WritableStream = process.stderr,
  ) {
    this.live = out.term.stderrIsTTY
  }

  /** Seconds since the start, for messages. */
  elapsedSeconds(): number {
    return Math.round((Date.now() - this.started) / 1000)
  }

  /** The text of the line: it quotes the network (a resource's id and state), so it is made printable on one line. */
  update(shown: string): void {
    const text = printableLine(shown)
    if (text === this.text) return
    this.text = text
    if (!this.live) {
      this.out.info(text)
      return
    }
    this.draw()
    if (!this.timer) {
      this.timer = setInterval(() => this.draw(), 100)
      this.timer.unref()
    }
  }

  /** Clears the live line (the final state is printed by the caller). */
  stop(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
    if (this.live && this.text) this.stream.write('\r\u001B[K')
  }

  private draw(): void {
    this.frame = (this.frame + 1) % FRAMES.length
    const spinner = this.out.color('cyan', FRAMES[this.frame], 'err')
    this.stream.write(`\r\u001B[K${spinner} ${this.text} ${this.out.color('dim', `(${this.elapsedSeconds()} s)`, 'err')}`)
  }
}
