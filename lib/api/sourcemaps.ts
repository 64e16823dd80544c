import { z } from 'zod'
import { InvalidInputError } from '@/lib/errors'
import { SOURCEMAP_LIMITS, TOO_MANY_FILES } from '@/lib/sourcemaps/limits'
import {
  deleteRelease,
  listReleaseFiles,
  listReleases,
  RELEASE_FILES_PAGE,
  RELEASES_PAGE,
} from '@/lib/sourcemaps/releases'
import { uploadSourcemaps } from '@/lib/sourcemaps/upload'
import { getBlobStore } from '@/lib/storage'
import { parseLimit } from './params'
import type { ApiRequest } from './request'

type ReleaseParams = { release: string }

/** The answers, for the OpenAPI document. */
export const StoredMapSchema = z.object({
  url: z.string(),
  debugId: z.string().nullable(),
  sizeBytes: z.number().int(),
})
export const ReleaseSummarySchema = z.object({
  release: z.string(),
  files: z.number().int(),
  sizeBytes: z.number().int(),
  lastUploadedAt: z.string(),
})
export const ReleaseFileSchema = StoredMapSchema.extend({ uploadedAt: z.string() })

/**
 * POST /api/v1/sourcemaps (multipart/form-data, answered 201): `release`, optional
 * `urlPrefix`, and one file part per map or minified file, named by its relative path.
 */
export async function uploadSourcemapsRequest({ db, principal, body }: ApiRequest<Record<string, never>>) {
  if (!(body instanceof FormData)) throw new InvalidInputError('Request body must be multipart/form-data')
  let count = 0
  for (const [, value] of body) if (typeof value !== 'string') count++
  // Counted before any part is copied out of the form.
  if (count > SOURCEMAP_LIMITS.maxFiles) throw new InvalidInputError(TOO_MANY_FILES)
  const parts: { name: string; bytes: Uint8Array }[] = []
  for (const [, value] of body)
    if (typeof value !== 'string')
      parts.push({ name: value.name, bytes: new Uint8Array(await value.arrayBuffer()) })
  return uploadSourcemaps(db, getBlobStore(), {
    organizationId: principal.organizationId,
    release: body.get('release') ?? undefined,
    urlPrefix: body.get('urlPrefix') ?? undefined,
    files: parts,
  })
}

/** GET /api/v1/sourcemaps: releases with maps, most recently uploaded first. */
export async function listReleasesRequest({ db, principal, query }: ApiRequest<Record<string, never>>) {
  const releases = await listReleases(db, principal.organizationId, {
    limit: parseLimit(query.get('limit'), RELEASES_PAGE),
  })
  return { releases }
}

/** GET /api/v1/sourcemaps/{release}: the release's maps by address. */
export async function listReleaseFilesRequest({ db, principal, params, query }: ApiRequest<ReleaseParams>) {
  const files = await listReleaseFiles(db, principal.organizationId, {
    release: params.release,
    limit: parseLimit(query.get('limit'), RELEASE_FILES_PAGE),
  })
  return { release: params.release, files }
}

/** DELETE /api/v1/sourcemaps/{release}: its rows and the blobs no other release uses. */
export async function deleteReleaseRequest({ db, principal, params }: ApiRequest<ReleaseParams>) {
  const deleted = await deleteRelease(db, getBlobStore(), principal.organizationId, {
    release: params.release,
  })
  return { release: deleted.release, deletedFiles: deleted.files }
}
