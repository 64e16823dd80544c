import { and, desc, eq, sql } from 'drizzle-orm'
import { z } from 'zod'
import type { DbOrTx } from '@/db/client'
import { erasures, PERSON_KINDS, PRIVACY_JOB_STATUSES } from '@/db/schema'
import type { Actor } from '@/lib/actor'
import { recordAudit } from '@/lib/audit/record'
import { isUuid, NotFoundError } from '@/lib/errors'
import { commitWithEvents } from '@/lib/outbox/commit'
import { enqueueEvent } from '@/lib/outbox/enqueue'
import { EVENTS } from '@/lib/outbox/events'
import { afterCursor, type Page, toPage } from '@/lib/pagination/keyset'
import { type PersonRef, sealPerson } from './person'

/**
 * The time the service promises an erasure is finished by (docs/privacy.md#erasure). The job
 * starts at once; the margin covers retries and an engine that was down.
 */
export const ERASURE_DUE_HOURS = 24

export const ERASURES_PAGE = { default: 20, max: 100 }

/** One erasure as the Data API, the dashboard and the CLI show it: never the person. */
export const ErasureView = z.object({
  id: z.uuid(),
  status: z.enum(PRIVACY_JOB_STATUSES),
  personKind: z.enum(PERSON_KINDS),
  /** What was removed so far (sessions, blobs, issuesDeleted, ...); grows while it runs. */
  counts: z.record(z.string(), z.number()),
  createdAt: z.iso.datetime({ offset: true }),
  dueAt: z.iso.datetime({ offset: true }),
  startedAt: z.iso.datetime({ offset: true }).nullable(),
  completedAt: z.iso.datetime({ offset: true }).nullable(),
  error: z.string().nullable(),
})
export type ErasureView = z.infer<typeof ErasureView>

type ErasureRow = typeof erasures.$inferSelect

export function erasureView(row: ErasureRow): ErasureView {
  return {
    id: row.id,
    status: row.status,
    personKind: row.personKind,
    counts: row.counts,
    createdAt: row.createdAt.toISOString(),
    dueAt: row.dueAt.toISOString(),
    startedAt: row.startedAt?.toISOString() ?? null,
    completedAt: row.completedAt?.toISOString() ?? null,
    error: row.error,
  }
}

/**
 * Queues the erasure of one person: the request row (the identifier only sealed), its audit
 * entry and the event that starts the job, in one transaction. The audit entry names the kind
 * of identifier, never its value.
 */
export async function requestErasure(db: DbOrTx, actor: Actor, person: PersonRef): Promise<ErasureView> {
  return commitWithEvents(db, async (tx) => {
    const [row] = await tx
      .insert(erasures)
      .values({
        organizationId: actor.organizationId,
        personKind: person.kind,
        personSealed: sealPerson(person),
        requestedByType: actor.actorType,
        requestedById: actor.actorId,
        dueAt: sql`now() + make_interval(hours => ${ERASURE_DUE_HOURS})`,
      })
      .returning()
    await recordAudit(tx, actor, {
      action: 'erasure.requested',
      targetType: 'erasure',
      targetId: row!.id,
      metadata: { personKind: person.kind },
    })
    await enqueueEvent(tx, {
      organizationId: actor.organizationId,
      name: EVENTS.erasureRequested,
      payload: { organizationId: actor.organizationId, erasureId: row!.id },
      dedupeKey: `erasure:${row!.id}`,
    })
    return erasureView(row!)
  })
}

export async function getErasureRow(db: DbOrTx, organizationId: string, erasureId: string) {
  const missing = new NotFoundError('Erasure not found')
  if (!isUuid(erasureId)) throw missing
  const [row] = await db
    .select()
    .from(erasures)
    .where(and(eq(erasures.organizationId, organizationId), eq(erasures.id, erasureId)))
  if (!row) throw missing
  return row
}

export async function getErasure(db: DbOrTx, organizationId: string, erasureId: string) {
  return erasureView(await getErasureRow(db, organizationId, erasureId))
}

/** The organization's erasures, newest first. */
export async function listErasures(
  db: DbOrTx,
  organizationId: string,
  options: { limit: number; cursor?: string },
): Promise<Page<ErasureView>> {
  const request = { ...options, scope: `erasures:${organizationId}` }
  const rows = await db
    .select()
    .from(erasures)
    .where(
      and(eq(erasures.organizationId, organizationId), afterCursor(request, erasures.createdAt, erasures.id)),
    )
    .orderBy(desc(erasures.createdAt), desc(erasures.id))
    .limit(options.limit + 1)
  return toPage(rows, request, erasureView)
}
