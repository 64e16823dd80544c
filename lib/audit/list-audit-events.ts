import { and, desc, eq, gte, inArray } from 'drizzle-orm'
import { z } from 'zod'
import type { DbOrTx } from '@/db/client'
import { auditEvents, credentials, oauthClients, users } from '@/db/schema'
import { isUuid } from '@/lib/errors'
import { afterCursor, type Page, toPage } from '@/lib/pagination/keyset'
import { parseInput } from '@/lib/validation'
import { AUDIT_ACTIONS } from './actions'
import type { AuditEvent } from './views'

export const AUDIT_EVENTS_PAGE = { default: 50, max: 200 }

export const INVALID_ACTION = `action must be one of: ${AUDIT_ACTIONS.join(', ')}`
export const INVALID_SINCE = 'since must be an ISO 8601 time with a time zone, e.g. 2026-01-31T00:00:00Z'

const Action = z.enum(AUDIT_ACTIONS, { error: INVALID_ACTION })
// Bounded before the date is read.
const Since = z
  .string()
  .max(40, INVALID_SINCE)
  .pipe(z.iso.datetime({ offset: true, error: INVALID_SINCE }))
  .transform((value) => new Date(value))

export interface AuditQuery {
  limit: number
  cursor?: string
  action?: string
  since?: string
}

type Row = typeof auditEvents.$inferSelect

/** The names the trail's actors go by now; an actor deleted since is left unnamed. */
async function actorNames(db: DbOrTx, rows: readonly Row[]): Promise<Map<string, string>> {
  const idsOf = (type: Row['actorType'], uuidOnly: boolean) => [
    ...new Set(
      rows
        .filter((r) => r.actorType === type && r.actorId !== null && (!uuidOnly || isUuid(r.actorId)))
        .map((r) => r.actorId!),
    ),
  ]
  const userIds = idsOf('user', true)
  const credentialIds = idsOf('credential', true)
  const clientIds = idsOf('oauth_client', false)
  const [people, keys, apps] = await Promise.all([
    userIds.length
      ? db
          .select({ id: users.id, name: users.name, email: users.email })
          .from(users)
          .where(inArray(users.id, userIds))
      : [],
    credentialIds.length
      ? db
          .select({ id: credentials.id, name: credentials.name, prefix: credentials.displayPrefix })
          .from(credentials)
          .where(inArray(credentials.id, credentialIds))
      : [],
    clientIds.length
      ? db
          .select({ id: oauthClients.clientId, name: oauthClients.clientName })
          .from(oauthClients)
          .where(inArray(oauthClients.clientId, clientIds))
      : [],
  ])
  const names = new Map<string, string>()
  for (const p of people) names.set(`user:${p.id}`, p.name ?? p.email)
  for (const k of keys) names.set(`credential:${k.id}`, `${k.name} (${k.prefix})`)
  for (const a of apps) names.set(`oauth_client:${a.id}`, a.name)
  return names
}

function toAuditEvent(row: Row, names: Map<string, string>): AuditEvent {
  const name =
    row.actorType === 'system'
      ? row.actorId === 'cli'
        ? 'Admin CLI'
        : 'The service'
      : (names.get(`${row.actorType}:${row.actorId}`) ?? null)
  return {
    id: row.id,
    createdAt: row.createdAt.toISOString(),
    actor: { type: row.actorType, id: row.actorId, name },
    action: row.action,
    targetType: row.targetType,
    targetId: row.targetId,
    metadata: row.metadata,
    requestId: row.requestId,
  }
}

/**
 * The organization's audit trail, newest first, a keyset page at a time, optionally one action
 * only and no older than `since` (both bound into the cursor). Actors are named as they are now.
 */
export async function listAuditEvents(
  db: DbOrTx,
  organizationId: string,
  query: AuditQuery,
): Promise<Page<AuditEvent>> {
  const action = query.action === undefined ? undefined : parseInput(Action, query.action)
  const since = query.since === undefined ? undefined : parseInput(Since, query.since)
  const request = {
    limit: query.limit,
    cursor: query.cursor,
    scope: `audit:${organizationId}:${action ?? ''}:${since?.getTime() ?? ''}`,
  }
  const rows = await db
    .select()
    .from(auditEvents)
    .where(
      and(
        eq(auditEvents.organizationId, organizationId),
        action ? eq(auditEvents.action, action) : undefined,
        since ? gte(auditEvents.createdAt, since) : undefined,
        afterCursor(request, auditEvents.createdAt, auditEvents.id),
      ),
    )
    .orderBy(desc(auditEvents.createdAt), desc(auditEvents.id))
    .limit(query.limit + 1)
  const names = await actorNames(db, rows.slice(0, query.limit))
  return toPage(rows, request, (row) => toAuditEvent(row, names))
}
