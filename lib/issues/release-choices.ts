import { desc, eq } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { releases } from '@/db/schema'
import { sortReleases } from '@/lib/releases/order'
import { orderedReleaseColumns, organizationOrderMode, placedAtColumn } from '@/lib/releases/read-releases'

/** Releases the dashboard offers to resolve in; older ones can still be named through the Data API. */
export const RELEASE_CHOICES = 50
/** Releases read to find the latest: enough for any organization's order to put the latest among them. */
const RELEASES_READ = 1000

/**
 * The organization's releases for "Resolved in release…", latest first in its order
 * (lib/releases/order.ts): semver when every release is semver, else by deploy or first-seen time.
 */
export async function releaseChoices(db: DbOrTx, organizationId: string): Promise<string[]> {
  const rows = await db
    .select(orderedReleaseColumns)
    .from(releases)
    .where(eq(releases.organizationId, organizationId))
    .orderBy(desc(placedAtColumn), desc(releases.version))
    .limit(RELEASES_READ)
  return sortReleases(rows, await organizationOrderMode(db, organizationId))
    .reverse()
    .slice(0, RELEASE_CHOICES)
    .map((row) => row.version)
}
