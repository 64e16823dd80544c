import { z } from 'zod'
import { BACKFILL_STATUSES, SIGNAL_STATUSES, type signals } from '@/db/schema'

export const Signal = z.object({
  id: z.uuid(),
  name: z.string(),
  prompt: z.string(),
  status: z.enum(SIGNAL_STATUSES),
  backfillStatus: z.enum(BACKFILL_STATUSES),
  createdAt: z.iso.datetime({ offset: true }),
  matchCount: z.number().int(),
  lastMatchAt: z.iso.datetime({ offset: true }).nullable(),
  /** Only sessions this saved search finds can match (docs/saved-searches.md); null: any session. */
  savedSearchId: z.uuid().nullable(),
})
export type Signal = z.infer<typeof Signal>

type SignalRow = Pick<
  typeof signals.$inferSelect,
  | 'id'
  | 'name'
  | 'prompt'
  | 'status'
  | 'backfillStatus'
  | 'createdAt'
  | 'matchCount'
  | 'lastMatchAt'
  | 'savedSearchId'
>

export function toSignal(row: SignalRow): Signal {
  return {
    id: row.id,
    name: row.name,
    prompt: row.prompt,
    status: row.status,
    backfillStatus: row.backfillStatus,
    createdAt: row.createdAt.toISOString(),
    matchCount: row.matchCount,
    lastMatchAt: row.lastMatchAt?.toISOString() ?? null,
    savedSearchId: row.savedSearchId,
  }
}
