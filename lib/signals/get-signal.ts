import { and, eq } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { signals } from '@/db/schema'
import { isUuid, NotFoundError } from '@/lib/errors'
import { type Signal, toSignal } from './views'

export const SIGNAL_NOT_FOUND = 'Signal not found'

/** One signal of the organization; another organization's id reads as missing. */
export async function getSignal(
  db: DbOrTx,
  input: { organizationId: string; signalId: string },
): Promise<Signal> {
  if (!isUuid(input.signalId)) throw new NotFoundError(SIGNAL_NOT_FOUND)
  const [row] = await db
    .select()
    .from(signals)
    .where(and(eq(signals.id, input.signalId), eq(signals.organizationId, input.organizationId)))
  if (!row) throw new NotFoundError(SIGNAL_NOT_FOUND)
  return toSignal(row)
}
