import { and, eq } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { type IssueStatus, releases } from '@/db/schema'
import { InvalidInputError } from '@/lib/errors'
import { MAX_RELEASE_LENGTH } from '@/lib/ingest/schema'
import { isStorableText, NOT_STORABLE } from '@/lib/validation'

/**
 * What a resolution says about the fix (docs/releases.md#resolve-in-a-release): nothing (any later
 * occurrence reopens the issue, as before releases), a release that contains it, or "the next
 * release", the first release seen after the resolution.
 */
export type Resolution = { kind: 'none' } | { kind: 'inRelease'; release: string } | { kind: 'inNextRelease' }

export const RESOLVED_ONLY = 'inRelease and inNextRelease can only be given with status "resolved"'
export const ONE_RESOLUTION = 'Give either inRelease or inNextRelease, not both'
export const INVALID_IN_RELEASE = `inRelease must be a release name of 1 to ${MAX_RELEASE_LENGTH} characters`
export const INVALID_IN_NEXT_RELEASE = 'inNextRelease must be true or false'
export const UNSTORABLE_IN_RELEASE = `inRelease ${NOT_STORABLE}`

export function unknownReleaseMessage(release: string): string {
  return `inRelease names no release of this organization: "${release}" was never seen in a session nor declared with POST /api/v1/releases`
}

/**
 * The resolution a caller asked for with `status`, from the optional `inRelease` / `inNextRelease`
 * of a request (anything a caller sent: checked before use). Null when neither was given, so the
 * change is the one it always was.
 */
export function parseResolution(
  status: IssueStatus,
  input: { inRelease?: unknown; inNextRelease?: unknown },
): Resolution | null {
  const { inRelease, inNextRelease } = input
  if (inNextRelease !== undefined && typeof inNextRelease !== 'boolean')
    throw new InvalidInputError(INVALID_IN_NEXT_RELEASE)
  if (
    inRelease !== undefined &&
    (typeof inRelease !== 'string' || inRelease.length === 0 || inRelease.length > MAX_RELEASE_LENGTH)
  )
    throw new InvalidInputError(INVALID_IN_RELEASE)
  // No release has such a name, and the database would refuse to compare it.
  if (typeof inRelease === 'string' && !isStorableText(inRelease))
    throw new InvalidInputError(UNSTORABLE_IN_RELEASE)
  const next = inNextRelease === true
  if (inRelease === undefined && !next) return null
  if (status !== 'resolved') throw new InvalidInputError(RESOLVED_ONLY)
  if (inRelease !== undefined && next) throw new InvalidInputError(ONE_RESOLUTION)
  return inRelease !== undefined ? { kind: 'inRelease', release: inRelease } : { kind: 'inNextRelease' }
}

/** A named release must be one the organization has: a typo would otherwise never match a session. */
export async function assertKnownRelease(db: DbOrTx, organizationId: string, resolution: Resolution) {
  if (resolution.kind !== 'inRelease') return
  const [known] = await db
    .select({ version: releases.version })
    .from(releases)
    .where(and(eq(releases.organizationId, organizationId), eq(releases.version, resolution.release)))
  if (!known) throw new InvalidInputError(unknownReleaseMessage(resolution.release))
}

/** The issue's resolution columns for a resolution made now. */
export function resolutionColumns(resolution: Resolution) {
  return {
    resolvedInRelease: resolution.kind === 'inRelease' ? resolution.release : null,
    resolvedInNextRelease: resolution.kind === 'inNextRelease',
  }
}

/** The resolution the issue's columns hold. */
export function resolutionOf(row: {
  resolvedInRelease: string | null
  resolvedInNextRelease: boolean
}): Resolution {
  if (row.resolvedInNextRelease && row.resolvedInRelease === null) return { kind: 'inNextRelease' }
  if (row.resolvedInRelease !== null) return { kind: 'inRelease', release: row.resolvedInRelease }
  return { kind: 'none' }
}

/** Activity metadata naming a resolution's release choice; null for none (as before releases). */
export function resolutionMetadata(resolution: Resolution): Record<string, unknown> | null {
  if (resolution.kind === 'inRelease') return { release: resolution.release }
  if (resolution.kind === 'inNextRelease') return { nextRelease: true }
  return null
}
