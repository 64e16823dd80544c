import { Cron } from 'croner'
import type { JobDefinition } from '../types'

/** The event name Inngest gives scheduled runs; used here too so handlers see the same event. */
export const SCHEDULED_EVENT = 'inngest/scheduled.timer'

// setTimeout overflows past 2^31-1 ms; longer waits are taken in several hops.
const MAX_TIMER_MS = 2 ** 31 - 1

/** Called once per tick (epoch ms) of each schedule, in every process that runs the scheduler. */
export type OnTick = (def: JobDefinition, tick: number) => void

interface Schedule {
  def: JobDefinition
  cron?: Cron
  everyMs?: number
}

/**
 * Parses Inngest's cron syntax, including its optional `TZ=Area/City` prefix, so one string
 * means the same schedule on both engines.
 */
export function parseCron(expression: string): Cron {
  const match = /^(?:CRON_)?TZ=(\S+)\s+(\S.*)$/.exec(expression.trim())
  return match
    ? new Cron(match[2]!, { paused: true, timezone: match[1] })
    : new Cron(expression.trim(), { paused: true })
}

/** Next tick strictly after `after`, or undefined when the schedule has none left. */
export function nextTick(schedule: Schedule, after: number): number | undefined {
  if (schedule.everyMs) {
    // Aligned to the epoch, so every process computes the same ticks and the run's unique key
    // collapses them into one run.
    return (Math.floor(after / schedule.everyMs) + 1) * schedule.everyMs
  }
  return schedule.cron?.nextRun(new Date(after))?.getTime()
}

export class Scheduler {
  private readonly schedules: Schedule[] = []
  private readonly timers = new Set<ReturnType<typeof setTimeout>>()
  private running = false

  constructor(
    definitions: readonly JobDefinition[],
    private readonly onTick: OnTick,
  ) {
    for (const def of definitions) {
      if ('event' in def.trigger) continue
      const { cron, everySeconds } = def.trigger
      if (everySeconds !== undefined && !(everySeconds > 0))
        throw new Error(`Job ${def.id}: everySeconds must be positive`)
      // Parsed now so that a bad expression fails at start-up, not at the first tick.
      this.schedules.push(
        everySeconds ? { def, everyMs: everySeconds * 1000 } : { def, cron: parseCron(cron) },
      )
    }
  }

  get size(): number {
    return this.schedules.length
  }

  start(): void {
    if (this.running) return
    this.running = true
    const now = Date.now()
    for (const schedule of this.schedules) this.armNext(schedule, now)
  }

  stop(): void {
    this.running = false
    for (const timer of this.timers) clearTimeout(timer)
    this.timers.clear()
  }

  private armNext(schedule: Schedule, after: number): void {
    const tick = nextTick(schedule, after)
    if (tick !== undefined && this.running) this.arm(schedule, tick)
  }

  private arm(schedule: Schedule, tick: number): void {
    const timer = setTimeout(
      () => {
        this.timers.delete(timer)
        if (!this.running) return
        // Timers may fire a little early, and long waits are split into hops.
        if (Date.now() < tick) return this.arm(schedule, tick)
        this.onTick(schedule.def, tick)
        this.armNext(schedule, tick)
      },
      Math.min(Math.max(0, tick - Date.now()), MAX_TIMER_MS),
    )
    timer.unref()
    this.timers.add(timer)
  }
}
