import { and, eq, inArray, sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { releases } from '@/db/schema'
import type { OrderedRelease, ReleaseOrderMode } from './order'

/** What ordering a release needs (order.ts), as a select. */
export const orderedReleaseColumns = {
  version: releases.version,
  semver: releases.semver,
  firstSeenAt: releases.firstSeenAt,
  deployedAt: releases.deployedAt,
}

/** Deploy time, else first seen: the place of a release in seen order, and the index's order for reading the latest. */
export const placedAtColumn = sql`coalesce(${releases.deployedAt}, ${releases.firstSeenAt})`

/** The organization's order, decided over all of its releases: semver only when every one is. */
export async function organizationOrderMode(db: DbOrTx, organizationId: string): Promise<ReleaseOrderMode> {
  const [row] = await db
    .select({ allSemver: sql<boolean>`coalesce(bool_and(${releases.semver}), false)` })
    .from(releases)
    .where(eq(releases.organizationId, organizationId))
  return row?.allSemver ? 'semver' : 'seen'
}

/** The named releases of the organization that exist (the cost follows the list, not the organization). */
export function namedReleases(
  db: DbOrTx,
  organizationId: string,
  versions: readonly string[],
): Promise<OrderedRelease[]> {
  return db
    .select(orderedReleaseColumns)
    .from(releases)
    .where(and(eq(releases.organizationId, organizationId), inArray(releases.version, [...versions])))
}
