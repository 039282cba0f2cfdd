/**
 * The sandbox clock: real time plus an offset that `POST /_sandbox/clock/advance` moves forward.
 * Token expiry, the T+1 hold, checkout expiry and settlement deadlines all read this clock;
 * webhook signature timestamps use real time (receivers compare them with their own clock).
 */
export class Clock {
  constructor(public offsetMs = 0) {}

  now(): number {
    return Date.now() + this.offsetMs
  }

  private lastMs = NaN
  private lastIso = ''

  /** ISO 8601 of a clock time (the last one memoised: many records of one request share it). */
  iso(ms = this.now()): string {
    if (ms !== this.lastMs) {
      this.lastIso = new Date(ms).toISOString()
      this.lastMs = ms
    }
    return this.lastIso
  }

  advance(seconds: number): void {
    this.offsetMs += Math.round(seconds * 1000)
  }
}
