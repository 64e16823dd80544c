import { z } from 'zod'
import type { insights } from '@/db/schema'

export const Insight = z.object({
  id: z.uuid(),
  createdAt: z.iso.datetime({ offset: true }),
  intervalStart: z.iso.datetime({ offset: true }),
  intervalEnd: z.iso.datetime({ offset: true }),
  sessionsCount: z.number().int(),
  contentPreview: z.string(),
})
export type Insight = z.infer<typeof Insight>

type InsightRow = Pick<
  typeof insights.$inferSelect,
  'id' | 'createdAt' | 'intervalStart' | 'intervalEnd' | 'sessionsCount' | 'contentPreview'
>

export function toInsight(row: InsightRow): Insight {
  return {
    id: row.id,
    createdAt: row.createdAt.toISOString(),
    intervalStart: row.intervalStart.toISOString(),
    intervalEnd: row.intervalEnd.toISOString(),
    sessionsCount: row.sessionsCount,
    contentPreview: row.contentPreview,
  }
}
