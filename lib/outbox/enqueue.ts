import { outbox } from '@/db/schema'
import type { DbOrTx } from '@/lib/db'
import { currentRequestId } from '@/lib/log'
import { type EventName, type EventPayload, parseEventPayload } from './events'
import { pendingEvents } from './pending'

/** One event as its producer writes it: the payload is the catalogue's for its name. */
export type OutboxEvent<N extends EventName = EventName> = {
  [K in N]: {
    organizationId: string
    name: K
    payload: EventPayload<K>
    /** Two causes of the same work (a retried batch, a racing finalizer) write one row. */
    dedupeKey?: string
  }
}[N]

/**
 * Writes an event in the caller's transaction, so it exists exactly when the change that
 * caused it does; inside commitWithEvents it is handed to the engine after the commit.
 * The payload is checked against the catalogue before it is written (values read from the
 * database are typed, not proven), so a row that every job would refuse is never stored.
 * Returns the event id, or null when the dedupe key was already written.
 */
export async function enqueueEvent(tx: DbOrTx, event: OutboxEvent): Promise<string | null> {
  const payload = parseEventPayload(event.name, event.payload)
  const [row] = await tx
    .insert(outbox)
    .values({
      organizationId: event.organizationId,
      name: event.name,
      payload,
      dedupeKey: event.dedupeKey ?? null,
      requestId: currentRequestId() ?? null,
    })
    .onConflictDoNothing()
    .returning({ eventId: outbox.eventId })
  if (row) pendingEvents.getStore()?.push(row.eventId)
  return row?.eventId ?? null
}
