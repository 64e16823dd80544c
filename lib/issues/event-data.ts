import { eq } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { issues } from '@/db/schema'

/** The `issue.*` event data of the spec's webhook table, as of now (description truncated at delivery). */
export async function issueEventData(db: DbOrTx, issueId: string) {
  const [row] = await db.select().from(issues).where(eq(issues.id, issueId))
  if (!row) throw new Error(`issue ${issueId} vanished inside its own transaction`)
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
