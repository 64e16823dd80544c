import { and, eq } from 'drizzle-orm'
import { z } from 'zod'
import type { Db } from '@/db/client'
import { SIGNAL_STATUSES, signals } from '@/db/schema'
import { isUuid, NotFoundError } from '@/lib/errors'
import { commitWithEvents } from '@/lib/outbox/commit'
import { enqueueEvent } from '@/lib/outbox/enqueue'
import { EVENTS } from '@/lib/outbox/events'
import { parseInput } from '@/lib/validation'
import { SIGNAL_NOT_FOUND } from './get-signal'
import { type Signal, toSignal } from './views'

const Status = z.enum(SIGNAL_STATUSES, { error: 'Status must be "active" or "paused"' })

/**
 * Pauses or resumes a signal. A paused signal is left out of matching (see `activeSignals`)
 * and its backfill waits; resuming a signal whose backfill never ran asks for it again, in the
 * same transaction, handed to the engine after the commit (its id is returned too).
 */
export async function setSignalStatus(
  db: Db,
  input: { organizationId: string; signalId: string; status: string },
): Promise<{ signal: Signal; eventId: string | null }> {
  const status = parseInput(Status, input.status)
  if (!isUuid(input.signalId)) throw new NotFoundError(SIGNAL_NOT_FOUND)
  return commitWithEvents(db, async (tx) => {
    const scope = and(eq(signals.id, input.signalId), eq(signals.organizationId, input.organizationId))
    const [before] = await tx.select({ status: signals.status }).from(signals).where(scope).for('update')
    if (!before) throw new NotFoundError(SIGNAL_NOT_FOUND)
    const [row] = await tx.update(signals).set({ status }).where(scope).returning()
    // A backfill that found the signal paused left it `pending`. Asking again when one is
    // still queued only repeats work (matches are unique per session); not asking would leave
    // the scan of past sessions undone for good.
    const resumed = before.status === 'paused' && status === 'active'
    const eventId =
      resumed && row!.backfillStatus === 'pending'
        ? await enqueueEvent(tx, {
            organizationId: input.organizationId,
            name: EVENTS.signalCreated,
            payload: { organizationId: input.organizationId, signalId: row!.id },
          })
        : null
    return { signal: toSignal(row!), eventId }
  })
}
