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
import { parseCursor, parseLimit } from './params'
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
  const release = body.get('release') ?? undefined
  const urlPrefix = body.get('urlPrefix') ?? undefined
  const files: (File | undefined)[] = []
  for (const [, value] of body) if (typeof value !== 'string') files.push(value)
  // Up to 50 MB: each part is copied out of the form and the form's copy let go, so that the
  // upload does not hold both while its maps are checked and stored.
  for (const [name, value] of [...body]) if (typeof value !== 'string') body.delete(name)
  const parts: { name: string; bytes: Uint8Array }[] = []
  for (let i = 0; i < files.length; i++) {
    const file = files[i]
    files[i] = undefined
    if (file) parts.push({ name: file.name, bytes: new Uint8Array(await file.arrayBuffer()) })
  }
  return uploadSourcemaps(db, getBlobStore(), {
    organizationId: principal.organizationId,
    release,
    urlPrefix,
    files: parts,
  })
}

/** GET /api/v1/sourcemaps: releases with maps, most recently uploaded first, paged. */
export async function listReleasesRequest({ db, principal, query }: ApiRequest<Record<string, never>>) {
  const page = await listReleases(db, principal.organizationId, {
    limit: parseLimit(query.get('limit'), RELEASES_PAGE),
    cursor: parseCursor(query.get('cursor')),
  })
  return { releases: page.items, nextCursor: page.nextCursor }
}

/** GET /api/v1/sourcemaps/{release}: the release's maps by address, paged. */
export async function listReleaseFilesRequest({ db, principal, params, query }: ApiRequest<ReleaseParams>) {
  const page = await listReleaseFiles(db, principal.organizationId, {
    release: params.release,
    limit: parseLimit(query.get('limit'), RELEASE_FILES_PAGE),
    cursor: parseCursor(query.get('cursor')),
  })
  return { release: params.release, files: page.items, nextCursor: page.nextCursor }
}

/** DELETE /api/v1/sourcemaps/{release}: its rows and the blobs no other release uses. */
export async function deleteReleaseRequest({ db, principal, params }: ApiRequest<ReleaseParams>) {
  const deleted = await deleteRelease(db, getBlobStore(), principal.organizationId, {
    release: params.release,
  })
  return { release: deleted.release, deletedFiles: deleted.files }
}
