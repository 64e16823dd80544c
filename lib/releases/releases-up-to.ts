import type { DbOrTx } from '@/db/client'
import { compareOrdered } from './order'
import { namedReleases, organizationOrderMode } from './read-releases'

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
  const order = await organizationOrderMode(db, organizationId)
  const rows = await namedReleases(db, organizationId, [target, ...versions])
  const limit = rows.find((row) => row.version === target)
  if (!limit) return null
  const asked = new Set(versions)
  return rows
    .filter((row) => asked.has(row.version) && compareOrdered(row, limit, order) <= 0)
    .map((row) => row.version)
}
