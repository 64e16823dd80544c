import type { Logger } from '@/lib/log'
import { backoffDelay } from './attempt'

export interface PollerOptions {
  intervalMs: number
  /** Ceiling of the backoff while `pump` keeps failing. */
  maxIntervalMs: number
  log: Logger
  /** One round of claiming; resolves true when it reached the database, false when it had nothing to do. */
  pump: () => Promise<boolean>
}

/**
 * Runs `pump` one round at a time: on every wake-up (a send, a finished run, a tick) and on a
 * timer for the work nobody announced (other processes' sends, retries, sleeps). While the
 * database is unreachable the timer backs off, and the outage is logged once, with its end.
 */
export class Poller {
  private running = false
  private pumping: Promise<void> | undefined
  private again = false
  private timer: ReturnType<typeof setTimeout> | undefined
  private outage: { since: number; failures: number } | undefined

  constructor(private readonly o: PollerOptions) {}

  start(): void {
    if (this.running) return
    this.running = true
    this.arm()
    void this.wake()
  }

  /** Stops the timer and waits for a round in progress. */
  async stop(): Promise<void> {
    this.running = false
    clearTimeout(this.timer)
    this.timer = undefined
    await this.pumping
  }

  wake(): Promise<void> {
    if (!this.running) return Promise.resolve()
    if (this.pumping) {
      this.again = true
      return this.pumping
    }
    const round = this.rounds()
      .then(
        (queried) => {
          if (queried) this.recovered()
        },
        (error: unknown) => this.failed(error),
      )
      .finally(() => {
        this.pumping = undefined
      })
    this.pumping = round
    return round
  }

  private async rounds(): Promise<boolean> {
    let queried = false
    do {
      this.again = false
      if (!this.running || !(await this.o.pump())) return queried
      queried = true
    } while (this.again)
    return queried
  }

  private arm(): void {
    const { intervalMs, maxIntervalMs } = this.o
    const delay = this.outage
      ? backoffDelay(this.outage.failures + 1, { baseMs: intervalMs, maxMs: maxIntervalMs })
      : intervalMs
    const timer = setTimeout(async () => {
      this.timer = undefined
      await this.wake()
      // A stop() and start() during that round already armed a new timer.
      if (this.running && !this.timer) this.arm()
    }, delay)
    timer.unref()
    this.timer = timer
  }

  private failed(error: unknown): void {
    if (this.outage) {
      this.outage.failures++
      return
    }
    this.outage = { since: Date.now(), failures: 1 }
    this.o.log.error(
      { err: error, maxPollIntervalMs: this.o.maxIntervalMs },
      'claiming job runs failed (is the database reachable?); polling backs off until it answers',
    )
  }

  private recovered(): void {
    if (!this.outage) return
    this.o.log.info({ downForMs: Date.now() - this.outage.since }, 'claiming job runs works again')
    this.outage = undefined
  }
}
