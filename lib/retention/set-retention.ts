import { eq } from 'drizzle-orm'
import { z } from 'zod'
import type { Db } from '@/db/client'
import { organizations } from '@/db/schema'
import type { Actor } from '@/lib/actor'
import { recordAudit } from '@/lib/audit/record'
import { getOrganization } from '@/lib/orgs/get-organization'
import { parseInput } from '@/lib/validation'
import { PINNED_SESSION_MAX_DAYS } from './pinned'

export const RETENTION_DAYS = { min: 1, max: 3650 }

const RetentionDays = z
  .number({ error: 'Retention must be a whole number of days' })
  .int('Retention must be a whole number of days')
  .min(RETENTION_DAYS.min, `Retention must be at least ${RETENTION_DAYS.min} day`)
  .max(RETENTION_DAYS.max, `Retention can be at most ${RETENTION_DAYS.max} days`)

/** Text counts only as a plain decimal: coercion would read "" as 0 and "1e2" as 100. */
function parseDays(value: unknown): number {
  const days =
    typeof value === 'string'
      ? /^\s*-?\d{1,6}(\.\d{1,6})?\s*$/.test(value)
        ? Number(value)
        : Number.NaN
      : value
  return parseInput(RetentionDays, days)
}

export interface RetentionSetting {
  id: string
  retentionDays: number
  /** How long a pinned session is kept at most (docs/privacy.md#retention). */
  pinnedMaxDays: number
}

/** How many days of replay data the organization keeps, and how long a pin keeps a session. */
export async function getOrganizationRetention(db: Db, organizationId: string): Promise<RetentionSetting> {
  const { id, retentionDays } = await getOrganization(db, organizationId)
  return { id, retentionDays, pinnedMaxDays: Math.max(retentionDays, PINNED_SESSION_MAX_DAYS) }
}

/**
 * Sets how many days of replay data an organization keeps (the retention sweep deletes older
 * sessions) and records `retention.changed` in the same transaction; setting the same number
 * again changes nothing and records nothing. `days` is a number or its text (the CLI, forms).
 */
export async function setOrganizationRetention(
  db: Db,
  actor: Actor,
  input: { organizationId: string; days: unknown },
): Promise<RetentionSetting> {
  const days = parseDays(input.days)
  return db.transaction(async (tx) => {
    const { id, retentionDays: before } = await getOrganization(tx, input.organizationId)
    if (before !== days) {
      await tx.update(organizations).set({ retentionDays: days }).where(eq(organizations.id, id))
      await recordAudit(tx, actor, {
        action: 'retention.changed',
        targetType: 'organization',
        targetId: id,
        metadata: { from: before, to: days },
      })
    }
    return { id, retentionDays: days, pinnedMaxDays: Math.max(days, PINNED_SESSION_MAX_DAYS) }
  })
}
