import type { DbOrTx } from '@/db/client'
import { auditEvents } from '@/db/schema'
import type { Actor } from '@/lib/actor'
import { currentRequestId } from '@/lib/log'
import type { AuditAction } from './actions'

export interface AuditEntry {
  action: AuditAction
  targetType?: string
  targetId?: string
  /** What changed (before/after, counts). Never an end user's identifier or recorded content. */
  metadata?: Record<string, unknown>
}

/**
 * Appends one entry to the organization's audit trail. Pass the transaction of the change it
 * records, so that an entry exists exactly when the change does.
 */
export async function recordAudit(db: DbOrTx, actor: Actor, entry: AuditEntry): Promise<void> {
  await db.insert(auditEvents).values({
    organizationId: actor.organizationId,
    actorType: actor.actorType,
    actorId: actor.actorId,
    action: entry.action,
    targetType: entry.targetType ?? null,
    targetId: entry.targetId ?? null,
    metadata: entry.metadata ?? null,
    requestId: currentRequestId() ?? null,
  })
}
