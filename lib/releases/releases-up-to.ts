import { and, eq, inArray, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { releases } from '@/db/schema'
import { compareOrdered, type OrderedRelease } from './order'

/**
 * Which of `versions` are `target` or earlier in the organization's order (order.ts), or null
 * when `target` is not one of its releases. Only the named releases are read, besides the one
 * figure the order needs from all of them (whether every one is semver), so the cost follows
 * the caller's list, not how many releases the organization has.
 */
export async function releasesUpTo(
  db: DbOrTx,
  organizationId: string,
  target: string,
  versions: readonly string[],
): Promise<string[] | null> {
  const [mode] = await db
    .select({ allSemver: sql<boolean>`coalesce(bool_and(${releases.semver}), false)` })
    .from(releases)
    .where(eq(releases.organizationId, organizationId))
  const rows: OrderedRelease[] = await db
    .select({
      version: releases.version,
      semver: releases.semver,
      firstSeenAt: releases.firstSeenAt,
      deployedAt: releases.deployedAt,
    })
    .from(releases)
    .where(and(eq(releases.organizationId, organizationId), inArray(releases.version, [target, ...versions])))
  const limit = rows.find((row) => row.version === target)
  if (!limit) return null
  const order = mode?.allSemver ? 'semver' : 'seen'
  const asked = new Set(versions)
  return rows
    .filter((row) => asked.has(row.version) && compareOrdered(row, limit, order) <= 0)
    .map((row) => row.version)
}
