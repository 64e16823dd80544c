import { sql } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { releases } from '@/db/schema'
import { compareOrdered, isSemverVersion } from './order'
import { namedReleases, organizationOrderMode } from './read-releases'

/**
 * Notes that a release exists (a counted session ran it, or CI declared it): the first time, it is
 * first seen now, by the server's clock. A deploy time, when CI states one, replaces the one it
 * had. Answers whether the release is new to the organization.
 */
export async function upsertRelease(
  tx: DbOrTx,
  input: { organizationId: string; version: string; deployedAt?: Date },
): Promise<{ inserted: boolean }> {
  const [row] = await tx
    .insert(releases)
    .values({
      organizationId: input.organizationId,
      version: input.version,
      semver: isSemverVersion(input.version),
      deployedAt: input.deployedAt ?? null,
    })
    .onConflictDoUpdate({
      target: [releases.organizationId, releases.version],
      set: input.deployedAt
        ? { deployedAt: input.deployedAt }
        : // Seen again: nothing changes, but the row is returned to say it was not new.
          { version: sql`${releases.version}` },
    })
    .returning({ inserted: sql<boolean>`(xmax = 0)` })
  return { inserted: row?.inserted === true }
}

/**
 * Whether release `a` is earlier (< 0), the same (0) or later (> 0) than `b` in the organization's
 * order, or null when either is not one of its releases.
 */
export async function compareReleases(
  db: DbOrTx,
  organizationId: string,
  a: string,
  b: string,
): Promise<number | null> {
  if (a === b) return 0
  const mode = await organizationOrderMode(db, organizationId)
  const rows = await namedReleases(db, organizationId, [a, b])
  const left = rows.find((row) => row.version === a)
  const right = rows.find((row) => row.version === b)
  if (!left || !right) return null
  return compareOrdered(left, right, mode)
}
