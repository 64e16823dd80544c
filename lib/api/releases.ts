import { z } from 'zod'
import { MAX_RELEASE_LENGTH } from '@/lib/ingest/schema'
import { recordSeenRelease } from '@/lib/issues/fix-release'
import { declareRelease } from '@/lib/releases/declare-release'
import { getRelease, listReleases, RELEASE_HEALTH_PAGE } from '@/lib/releases/health'
import { parseCursor, parseLimit } from './params'
import { type ApiRequest, bodyField } from './request'

/** The body of POST /api/v1/releases, for the OpenAPI document (declareRelease checks it). */
export const DeclareReleaseBody = z.object({
  version: z.string().min(1).max(MAX_RELEASE_LENGTH).meta({ description: 'No control characters' }),
  deployedAt: z.iso
    .datetime({ offset: true })
    .optional()
    .meta({ description: 'When it was deployed; default now for a new release' }),
})

type VersionParams = { version: string }

/** GET /api/v1/releases: the organization's releases with their health, latest first. */
export async function listReleasesHealthRequest({ db, principal, query }: ApiRequest<Record<string, never>>) {
  return listReleases(db, principal.organizationId, {
    limit: parseLimit(query.get('limit'), RELEASE_HEALTH_PAGE),
    cursor: parseCursor(query.get('cursor')),
  })
}

/** GET /api/v1/releases/{version}: one release's health, adoption and issues. */
export async function getReleaseHealthRequest({ db, principal, params }: ApiRequest<VersionParams>) {
  return { release: await getRelease(db, principal.organizationId, params.version) }
}

/**
 * POST /api/v1/releases: CI declares a release (and its deploy time). Recorded as a seen
 * release, so it becomes the "next release" of issues resolved in the next release.
 * Answers 201 when the release is new, 200 when it existed.
 */
export async function declareReleaseRequest({ db, principal, body }: ApiRequest<Record<string, never>>) {
  const { release, created } = await declareRelease(
    db,
    principal.organizationId,
    { version: bodyField(body, 'version'), deployedAt: bodyField(body, 'deployedAt') },
    recordSeenRelease,
  )
  // The status depends on the outcome, so the handler builds the answer; the wrapper adds its headers.
  return new Response(JSON.stringify({ release }), {
    status: created ? 201 : 200,
    headers: { 'Content-Type': 'application/json; charset=utf-8' },
  })
}
