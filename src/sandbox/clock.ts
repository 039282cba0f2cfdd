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

  iso(ms = this.now()): string {
    return new Date(ms).toISOString()
  }

  advance(seconds: number): void {
    this.offsetMs += Math.round(seconds * 1000)
  }
}
