import { and, desc, eq, isNull } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { type IntegrationKind, integrations } from '@/db/schema'
import { isUuid, NotFoundError } from '@/lib/errors'

const summary = {
  id: integrations.id,
  kind: integrations.kind,
  name: integrations.name,
  settings: integrations.settings,
  secretHint: integrations.secretHint,
  createdAt: integrations.createdAt,
  revokedAt: integrations.revokedAt,
  lastDeliveryAt: integrations.lastDeliveryAt,
  lastStatus: integrations.lastStatus,
  lastError: integrations.lastError,
}

export type IntegrationSummary = Awaited<ReturnType<typeof listIntegrations>>[number]

/** Every integration of the organization, disconnected ones included, newest first; never the secret. */
export function listIntegrations(db: DbOrTx, organizationId: string) {
  if (!isUuid(organizationId)) throw new NotFoundError(`Organization not found: ${organizationId}`)
  return db
    .select(summary)
    .from(integrations)
    .where(eq(integrations.organizationId, organizationId))
    .orderBy(desc(integrations.createdAt))
}

/** Which trackers the organization can create tickets in (the issue page's buttons). */
export async function activeTrackers(
  db: DbOrTx,
  organizationId: string,
): Promise<Exclude<IntegrationKind, 'slack'>[]> {
  const rows = await db
    .select({ kind: integrations.kind })
    .from(integrations)
    .where(and(eq(integrations.organizationId, organizationId), isNull(integrations.revokedAt)))
  const kinds = new Set(rows.map((r) => r.kind))
  // In the order the buttons show.
  return (['linear', 'github'] as const).filter((k) => kinds.has(k))
}

/** One integration of the organization (its log page), or NotFoundError. */
export async function getIntegration(db: DbOrTx, organizationId: string, id: string) {
  if (!isUuid(id)) throw new NotFoundError('Integration not found')
  const [row] = await db
    .select(summary)
    .from(integrations)
    .where(and(eq(integrations.id, id), eq(integrations.organizationId, organizationId)))
  if (!row) throw new NotFoundError('Integration not found')
  return row
}
