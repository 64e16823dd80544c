import { inArray, lt } from 'drizzle-orm'
import type { Db } from '@/db/client'
import { auditEvents } from '@/db/schema'

/** How long the audit trail keeps an entry (docs/privacy.md#audit-trail): a year and a margin. */
export const AUDIT_RETENTION_DAYS = 400

/**
 * Deletes audit entries older than AUDIT_RETENTION_DAYS, oldest first through the created_at
 * index, a chunk at a time (no long transaction). The only way an entry leaves, besides its
 * organization's deletion: the table refuses updates. Part of the retention sweep.
 */
export async function pruneAuditTrail(
  db: Db,
  options: { now?: Date; chunk?: number } = {},
): Promise<{ entries: number }> {
  const cutoff = new Date((options.now ?? new Date()).getTime() - AUDIT_RETENTION_DAYS * 86_400_000)
  const chunk = options.chunk ?? 1_000
  let entries = 0
  while (true) {
    const old = db
      .select({ id: auditEvents.id })
      .from(auditEvents)
      .where(lt(auditEvents.createdAt, cutoff))
      .limit(chunk)
    const deleted = await db
      .delete(auditEvents)
      .where(inArray(auditEvents.id, old))
      .returning({ id: auditEvents.id })
    entries += deleted.length
    if (deleted.length < chunk) break
  }
  return { entries }
}
