import { outbox } from '@/db/schema'
import type { DbOrTx } from '@/lib/db'
import { currentRequestId } from '@/lib/log'
import type { EventName } from './events'
import { pendingEvents } from './pending'

export interface OutboxEvent {
  organizationId: string
  name: EventName
  payload: Record<string, unknown>
  /** Two causes of the same work (a retried batch, a racing finalizer) write one row. */
  dedupeKey?: string
}

/**
 * Writes an event in the caller's transaction, so it exists exactly when the change that
 * caused it does; inside commitWithEvents it is handed to the engine after the commit.
 * Returns the event id, or null when the dedupe key was already written.
 */
export async function enqueueEvent(tx: DbOrTx, event: OutboxEvent): Promise<string | null> {
  const [row] = await tx
    .insert(outbox)
    .values({
      organizationId: event.organizationId,
      name: event.name,
      payload: event.payload,
      dedupeKey: event.dedupeKey ?? null,
      requestId: currentRequestId() ?? null,
    })
    .onConflictDoNothing()
    .returning({ eventId: outbox.eventId })
  if (row) pendingEvents.getStore()?.push(row.eventId)
  return row?.eventId ?? null
}
