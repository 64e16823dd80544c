import { randomUUID } from 'node:crypto'
import { currentRequestId } from '@/lib/log'
import { checkConcurrency } from '../concurrency'
import { checkRetries } from '../retries'
import type { JobDefinition, SendEvent } from '../types'
import type { NewRun } from './runs-store'
import { SCHEDULED_EVENT } from './scheduler'

/** Definitions by id and by the event that triggers them; refuses what Inngest would refuse. */
export function indexDefinitions(definitions: readonly JobDefinition[]) {
  const byId = new Map<string, JobDefinition>()
  const byEvent = new Map<string, JobDefinition[]>()
  for (const def of definitions) {
    if (byId.has(def.id)) throw new Error(`Duplicate job id ${def.id}`)
    checkRetries(def)
    // A definition not made with defineJob is checked here too: a limit of 0 would be a lane that never runs.
    checkConcurrency(def)
    byId.set(def.id, def)
    if ('event' in def.trigger)
      byEvent.set(def.trigger.event, [...(byEvent.get(def.trigger.event) ?? []), def])
  }
  return { byId, byEvent }
}

/**
 * The runs an event starts: one per definition it triggers, keyed by the event id so that
 * re-sending the event (the outbox does after a crash) starts nothing new.
 */
export function runsForEvents(
  events: readonly SendEvent[],
  triggered: (eventName: string) => readonly JobDefinition[],
): NewRun[] {
  const rows = new Map<string, NewRun>()
  for (const event of events) {
    const key = event.id ?? randomUUID()
    for (const def of triggered(event.name))
      rows.set(`${def.id}\u0000${key}`, {
        functionId: def.id,
        idempotencyKey: key,
        eventName: event.name,
        payload: event.data,
        maxAttempts: def.retries + 1,
        requestId: event.requestId ?? currentRequestId() ?? null,
      })
  }
  return [...rows.values()]
}

/** A schedule's run for one tick, keyed by the tick so every process enqueues the same run. */
export function runForTick(def: JobDefinition, cron: string, tick: number): NewRun {
  return {
    functionId: def.id,
    idempotencyKey: new Date(tick).toISOString(),
    eventName: SCHEDULED_EVENT,
    payload: { cron },
    maxAttempts: def.retries + 1,
    runAfter: new Date(tick),
  }
}
