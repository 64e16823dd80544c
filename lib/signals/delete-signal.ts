import { and, eq } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { signalMatches, signals } from '@/db/schema'
import { isUuid, NotFoundError } from '@/lib/errors'
import { SIGNAL_NOT_FOUND } from './get-signal'

/** Deletes a signal and every match it recorded; returns how many matches went with it. */
export async function deleteSignal(
  db: Db,
  input: { organizationId: string; signalId: string },
): Promise<{ deletedMatches: number }> {
  if (!isUuid(input.signalId)) throw new NotFoundError(SIGNAL_NOT_FOUND)
  return db.transaction(async (tx) => {
    const scope = and(eq(signals.id, input.signalId), eq(signals.organizationId, input.organizationId))
    // Locks the row first, so a match recorded concurrently waits and then finds no signal.
    const [row] = await tx.select({ id: signals.id }).from(signals).where(scope).for('update')
    if (!row) throw new NotFoundError(SIGNAL_NOT_FOUND)
    const matches = await tx
      .delete(signalMatches)
      .where(and(eq(signalMatches.signalId, row.id), eq(signalMatches.organizationId, input.organizationId)))
      .returning({ id: signalMatches.id })
    await tx.delete(signals).where(scope)
    return { deletedMatches: matches.length }
  })
}
