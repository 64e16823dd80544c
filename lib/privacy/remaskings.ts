import { and, desc, eq } from 'drizzle-orm'
import { z } from 'zod'
import type { DbOrTx } from '@/db/client'
import { PRIVACY_JOB_STATUSES, remaskings } from '@/db/schema'
import type { Actor } from '@/lib/actor'
import { recordAudit } from '@/lib/audit/record'
import { forgetCredentials } from '@/lib/credentials/credential-cache'
import { InvalidInputError, isUuid, NotFoundError } from '@/lib/errors'
import { commitWithEvents } from '@/lib/outbox/commit'
import { enqueueEvent } from '@/lib/outbox/enqueue'
import { EVENTS } from '@/lib/outbox/events'
import { setMaskSettings } from '@/lib/privacy/mask-settings'
import { describeMaskPattern } from './mask-patterns'
import { parseMaskRuleInput } from './mask-rules'

/** A re-masking as the Data API and the dashboard show it (docs/privacy.md#re-masking). */
export const RemaskingView = z.object({
  id: z.uuid(),
  status: z.enum(PRIVACY_JOB_STATUSES),
  selectors: z.array(z.string()),
  /** Built-ins by name; literals by their length only (a literal is often the secret). */
  patterns: z.array(z.string()),
  from: z.iso.datetime({ offset: true }).nullable(),
  to: z.iso.datetime({ offset: true }).nullable(),
  /** What it changed so far: sessions, batches, elements, texts, inputs, strings, timelineEntries, ... */
  counts: z.record(z.string(), z.number()),
  createdAt: z.iso.datetime({ offset: true }),
  startedAt: z.iso.datetime({ offset: true }).nullable(),
  completedAt: z.iso.datetime({ offset: true }).nullable(),
  error: z.string().nullable(),
})
export type RemaskingView = z.infer<typeof RemaskingView>

type RemaskingRow = typeof remaskings.$inferSelect

export function remaskingView(row: RemaskingRow): RemaskingView {
  return {
    id: row.id,
    status: row.status,
    selectors: row.selectors,
    patterns: row.patterns.map(describeMaskPattern),
    from: row.fromTime?.toISOString() ?? null,
    to: row.toTime?.toISOString() ?? null,
    counts: row.counts,
    createdAt: row.createdAt.toISOString(),
    startedAt: row.startedAt?.toISOString() ?? null,
    completedAt: row.completedAt?.toISOString() ?? null,
    error: row.error,
  }
}

export interface RemaskInput {
  selectors?: unknown
  patterns?: unknown
  from?: unknown
  to?: unknown
  /** Also add the rules to the organization's mask settings, so ingest and the recorder apply them from now on. */
  updateRecorder?: unknown
}

function instant(value: unknown, name: string): Date | null {
  if (value === undefined || value === null || value === '') return null
  if (
    typeof value !== 'string' ||
    value.length > 40 ||
    !z.iso.datetime({ offset: true }).safeParse(value).success
  )
    throw new InvalidInputError(`${name} must be an ISO 8601 date-time, e.g. 2026-01-31T00:00:00Z`)
  return new Date(value)
}

/**
 * Queues a re-masking of the organization's stored sessions started within [from, to): the
 * row, its audit entry, the event that starts the job and (with updateRecorder) the added mask
 * settings, in one transaction. Everything is checked first, so a bad request stores nothing.
 */
export async function requestRemasking(db: DbOrTx, actor: Actor, input: RemaskInput): Promise<RemaskingView> {
  const rules = parseMaskRuleInput(input)
  if (rules.selectors.length === 0 && rules.patterns.length === 0)
    throw new InvalidInputError('Give at least one selector or pattern')
  const from = instant(input.from, 'from')
  const to = instant(input.to, 'to')
  if (from && to && from >= to) throw new InvalidInputError('from must be before to')
  if (input.updateRecorder !== undefined && typeof input.updateRecorder !== 'boolean')
    throw new InvalidInputError('updateRecorder must be true or false')
  const view = await commitWithEvents(db, async (tx) => {
    const [row] = await tx
      .insert(remaskings)
      .values({
        organizationId: actor.organizationId,
        selectors: rules.selectors,
        patterns: rules.patterns,
        fromTime: from,
        toTime: to,
        requestedByType: actor.actorType,
        requestedById: actor.actorId,
      })
      .returning()
    await recordAudit(tx, actor, {
      action: 'remask.requested',
      targetType: 'remasking',
      targetId: row!.id,
      metadata: {
        selectors: rules.selectors,
        patterns: rules.patterns.map(describeMaskPattern),
        from: from?.toISOString() ?? null,
        to: to?.toISOString() ?? null,
        updateRecorder: input.updateRecorder === true,
      },
    })
    if (input.updateRecorder === true) await setMaskSettings(tx, actor, { ...rules, mode: 'add' })
    await enqueueEvent(tx, {
      organizationId: actor.organizationId,
      name: EVENTS.remaskRequested,
      payload: { organizationId: actor.organizationId, remaskingId: row!.id },
      dedupeKey: `remask:${row!.id}`,
    })
    return remaskingView(row!)
  })
  // setMaskSettings cleared the cached keys inside the transaction; a batch in between may have cached the old settings.
  if (input.updateRecorder === true) forgetCredentials()
  return view
}

export async function getRemaskingRow(db: DbOrTx, organizationId: string, remaskingId: string) {
  const missing = new NotFoundError('Re-masking not found')
  if (!isUuid(remaskingId)) throw missing
  const [row] = await db
    .select()
    .from(remaskings)
    .where(and(eq(remaskings.organizationId, organizationId), eq(remaskings.id, remaskingId)))
  if (!row) throw missing
  return row
}

export async function getRemasking(db: DbOrTx, organizationId: string, remaskingId: string) {
  return remaskingView(await getRemaskingRow(db, organizationId, remaskingId))
}

/** The organization's latest re-maskings, newest first (the dashboard's list). */
export async function listRemaskings(
  db: DbOrTx,
  organizationId: string,
  limit = 20,
): Promise<RemaskingView[]> {
  const rows = await db
    .select()
    .from(remaskings)
    .where(eq(remaskings.organizationId, organizationId))
    .orderBy(desc(remaskings.createdAt), desc(remaskings.id))
    .limit(Math.min(Math.max(limit, 1), 100))
  return rows.map(remaskingView)
}
