import { eq } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { issues } from '@/db/schema'
import type { EVENTS, EventPayload } from '@/lib/outbox/events'

type IssueEventData = EventPayload<typeof EVENTS.issueCreated>

/** The `issue.*` event data of the spec's webhook table, of one issue row (description truncated at delivery). */
export function toIssueEventData(row: typeof issues.$inferSelect): IssueEventData {
  return {
    issueId: row.id,
    orgId: row.organizationId,
    title: row.title,
    description: row.description,
    status: row.status,
    priority: row.priority,
    previewUrl: row.previewUrl,
    aiVerified: row.aiVerified,
    sourceType: row.sourceType,
  }
}

/** The `issue.*` event data of one issue, as of now (read in the caller's transaction). */
export async function issueEventData(db: DbOrTx, issueId: string): Promise<IssueEventData> {
  const [row] = await db.select().from(issues).where(eq(issues.id, issueId))
  if (!row) throw new Error(`issue ${issueId} vanished inside its own transaction`)
  return toIssueEventData(row)
}
