import { z } from 'zod'
import type { insights } from '@/db/schema'

export const Insight = z.object({
  id: z.uuid(),
  createdAt: z.iso.datetime({ offset: true }),
  intervalStart: z.iso.datetime({ offset: true }),
  intervalEnd: z.iso.datetime({ offset: true }),
  sessionsCount: z.number().int(),
  contentPreview: z.string(),
  /**
   * When an erasure removed sessions this insight was written from (docs/privacy.md#erasure):
   * its text stays, but it describes sessions that no longer exist. Null otherwise.
   */
  redactedAt: z.iso.datetime({ offset: true }).nullable(),
})
export type Insight = z.infer<typeof Insight>

type InsightRow = Pick<
  typeof insights.$inferSelect,
  'id' | 'createdAt' | 'intervalStart' | 'intervalEnd' | 'sessionsCount' | 'contentPreview' | 'redactedAt'
>

export function toInsight(row: InsightRow): Insight {
  return {
    id: row.id,
    createdAt: row.createdAt.toISOString(),
    intervalStart: row.intervalStart.toISOString(),
    intervalEnd: row.intervalEnd.toISOString(),
    sessionsCount: row.sessionsCount,
    contentPreview: row.contentPreview,
    redactedAt: row.redactedAt?.toISOString() ?? null,
  }
}
