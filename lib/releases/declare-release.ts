import { and, eq, sql } from 'drizzle-orm'
import { z } from 'zod'
import type { Db, Tx } from '@/db/client'
import { releases } from '@/db/schema'
import { InvalidInputError } from '@/lib/errors'
import { parseInput } from '@/lib/validation'
import { findRelease } from './health'
import { DeclaredVersion } from './version'
import type { Release } from './views'

/** How far ahead of the server's clock a deploy time may be: CI's clock may run a little fast. */
export const MAX_DEPLOY_CLOCK_SKEW_MS = 5 * 60_000
const EARLIEST_DEPLOY = Date.UTC(2000, 0, 1)
const MAX_DEPLOYED_AT_LENGTH = 64
const INVALID_DEPLOYED_AT =
  'deployedAt must be an ISO 8601 date-time with a time zone (such as 2026-05-01T12:00:00Z), from 2000 on and not more than 5 minutes in the future'

const DeployedAt = z
  .string({ error: INVALID_DEPLOYED_AT })
  .max(MAX_DEPLOYED_AT_LENGTH, INVALID_DEPLOYED_AT)
  .pipe(z.iso.datetime({ offset: true, error: INVALID_DEPLOYED_AT }))

/** The deploy time CI stated, checked against the server's clock; undefined when it stated none. */
export function parseDeployedAt(value: unknown, now: Date): Date | undefined {
  if (value === undefined || value === null) return undefined
  const at = new Date(parseInput(DeployedAt, value))
  const time = at.getTime()
  if (Number.isNaN(time) || time < EARLIEST_DEPLOY || time > now.getTime() + MAX_DEPLOY_CLOCK_SKEW_MS)
    throw new InvalidInputError(INVALID_DEPLOYED_AT)
  return at
}

/**
 * Records a release as seen: lib/issues' recordSeenRelease, so that a declared release can be
 * the "next release" of resolved issues. Passed in because this folder must not import lib/issues.
 */
export type RecordRelease = (
  tx: Tx,
  input: { organizationId: string; version: string; deployedAt?: Date },
) => Promise<unknown>

/**
 * CI declares a release (POST /api/v1/releases), optionally with its deploy time, which places
 * it in the order of non-semver releases (docs/releases.md#order). A new release without a
 * deploy time is deployed now; an existing one keeps its place unless a deploy time is given.
 */
export async function declareRelease(
  db: Db,
  organizationId: string,
  input: { version: unknown; deployedAt?: unknown },
  record: RecordRelease,
  options: { now?: Date } = {},
): Promise<{ release: Release; created: boolean }> {
  const version = parseInput(DeclaredVersion, input.version)
  const deployedAt = parseDeployedAt(input.deployedAt, options.now ?? new Date())
  const created = await db.transaction(async (tx) => {
    await record(tx, { organizationId, version, deployedAt })
    const where = and(eq(releases.organizationId, organizationId), eq(releases.version, version))
    // A row this transaction inserted was first seen at the transaction's start (its column
    // default, at the column's millisecond precision); an older row was first seen before it.
    const [row] = await tx
      .select({ created: sql<boolean>`${releases.firstSeenAt} = now()::timestamptz(3)` })
      .from(releases)
      .where(where)
    const isNew = row?.created === true
    if (isNew && !deployedAt) await tx.update(releases).set({ deployedAt: releases.firstSeenAt }).where(where)
    return isNew
  })
  const release = await findRelease(db, organizationId, version)
  if (!release) throw new Error(`Release ${version} was declared but cannot be read`)
  return { release, created }
}
