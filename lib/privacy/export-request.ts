import type { Db } from '@/db/client'
import { dataExports } from '@/db/schema'
import type { Actor } from '@/lib/actor'
import { recordAudit } from '@/lib/audit/record'
import { commitWithEvents } from '@/lib/outbox/commit'
import { enqueueEvent } from '@/lib/outbox/enqueue'
import { EVENTS } from '@/lib/outbox/events'
import { EXPORT_LIFETIME_DAYS, type ExportView, toExportView } from './export-view'
import { type PersonRef, sealPerson } from './person'

const DAY_MS = 86_400_000

/**
 * Queues an access request's export of one person (docs/privacy.md#exports): the row, the
 * event that starts the job and the audit entry exist together or not at all. The person is
 * kept only sealed, and the audit entry names how they were named, never who.
 */
export async function requestExport(
  db: Db,
  actor: Actor,
  person: PersonRef,
  now = new Date(),
): Promise<ExportView> {
  return commitWithEvents(db, async (tx) => {
    const [row] = await tx
      .insert(dataExports)
      .values({
        organizationId: actor.organizationId,
        personKind: person.kind,
        personSealed: sealPerson(person),
        requestedByType: actor.actorType,
        requestedById: actor.actorId,
        expiresAt: new Date(now.getTime() + EXPORT_LIFETIME_DAYS * DAY_MS),
      })
      .returning()
    await enqueueEvent(tx, {
      organizationId: actor.organizationId,
      name: EVENTS.exportRequested,
      payload: { organizationId: actor.organizationId, exportId: row!.id },
      dedupeKey: `export:${row!.id}`,
    })
    await recordAudit(tx, actor, {
      action: 'export.requested',
      targetType: 'export',
      targetId: row!.id,
      metadata: { personKind: person.kind },
    })
    return toExportView(row!)
  })
}
