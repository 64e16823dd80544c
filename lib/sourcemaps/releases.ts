import { and, asc, count, desc, eq, gt, inArray, max, sql, sum } from 'drizzle-orm'
import type { Db, DbOrTx } from '@/db/client'
import { sourcemapFiles } from '@/db/schema'
import { NotFoundError } from '@/lib/errors'
import { MAX_RELEASE_LENGTH } from '@/lib/ingest/schema'
import { cursorLengthFor, decodeCursor } from '@/lib/pagination/cursor'
import { type Page, toPage } from '@/lib/pagination/keyset'
import type { BlobStore } from '@/lib/storage'
import { parseInput } from '@/lib/validation'
import { SOURCEMAP_LIMITS } from './limits'
import { deleteUnreferencedBlobs, lockOrganizationMaps } from './references'
import { Release } from './upload'

export const RELEASES_PAGE = { default: 100, max: 500 }
export const RELEASE_FILES_PAGE = { default: 500, max: 1000 }

export interface ReleaseSummary {
  release: string
  files: number
  sizeBytes: number
  lastUploadedAt: Date
}

export interface ReleaseFile {
  url: string
  debugId: string | null
  sizeBytes: number
  uploadedAt: Date
}

export interface ReleasePageRequest {
  limit?: number
  cursor?: string
}

/**
 * The organization's releases with source maps, most recently uploaded first, then by name.
 * A cursor holds the last release's upload time and name (at most MAX_RELEASE_LENGTH
 * characters); releases are groups, not rows, so the page condition is on the aggregate.
 */
export async function listReleases(
  db: DbOrTx,
  organizationId: string,
  options: ReleasePageRequest = {},
): Promise<Page<ReleaseSummary>> {
  const request = {
    limit: options.limit ?? RELEASES_PAGE.default,
    cursor: options.cursor,
    scope: `sourcemaps:${organizationId}`,
  }
  const after = request.cursor
    ? decodeCursor(request.cursor, request.scope, undefined, cursorLengthFor(MAX_RELEASE_LENGTH))
    : undefined
  const lastUploadedAt = max(sourcemapFiles.uploadedAt)
  const afterAt = after ? sql`${after.createdAt.toISOString()}::timestamptz` : undefined
  const rows = await db
    .select({
      release: sourcemapFiles.release,
      files: count(),
      sizeBytes: sum(sourcemapFiles.sizeBytes).mapWith(Number),
      lastUploadedAt,
    })
    .from(sourcemapFiles)
    .where(eq(sourcemapFiles.organizationId, organizationId))
    .groupBy(sourcemapFiles.release)
    // The order is mixed (time descending, name ascending), so not one row-value comparison.
    .having(
      after
        ? sql`(${lastUploadedAt} < ${afterAt} or (${lastUploadedAt} = ${afterAt} and ${sourcemapFiles.release} > ${after.id}))`
        : undefined,
    )
    .orderBy(desc(lastUploadedAt), asc(sourcemapFiles.release))
    .limit(request.limit + 1)
  return toPage(
    rows.map((r) => {
      const at = r.lastUploadedAt ?? new Date(0)
      return { ...r, lastUploadedAt: at, createdAt: at, id: r.release }
    }),
    request,
    ({ release, files, sizeBytes, lastUploadedAt }) => ({ release, files, sizeBytes, lastUploadedAt }),
  )
}

/**
 * The maps of one release, by address; a release without any is not found. A cursor holds the
 * last address (at most maxAddressLength characters); addresses are unique within a release.
 */
export async function listReleaseFiles(
  db: DbOrTx,
  organizationId: string,
  input: { release: unknown } & ReleasePageRequest,
): Promise<Page<ReleaseFile>> {
  const release = parseInput(Release, input.release)
  const request = {
    limit: input.limit ?? RELEASE_FILES_PAGE.default,
    cursor: input.cursor,
    scope: `sourcemap-files:${organizationId}:${release}`,
  }
  const after = request.cursor
    ? decodeCursor(
        request.cursor,
        request.scope,
        undefined,
        cursorLengthFor(SOURCEMAP_LIMITS.maxAddressLength),
      )
    : undefined
  const rows = await db
    .select({
      url: sourcemapFiles.url,
      debugId: sourcemapFiles.debugId,
      sizeBytes: sourcemapFiles.sizeBytes,
      uploadedAt: sourcemapFiles.uploadedAt,
    })
    .from(sourcemapFiles)
    .where(
      and(
        eq(sourcemapFiles.organizationId, organizationId),
        eq(sourcemapFiles.release, release),
        after ? gt(sourcemapFiles.url, after.id) : undefined,
      ),
    )
    .orderBy(asc(sourcemapFiles.url))
    .limit(request.limit + 1)
  // A later page may be empty (its release deleted meanwhile); only the first one is not found.
  if (rows.length === 0 && !after) throw new NotFoundError(`No source maps for release ${release}`)
  // The position is the address alone; its time is unused.
  return toPage(
    rows.map((r) => ({ ...r, createdAt: new Date(0), id: r.url })),
    request,
    ({ url, debugId, sizeBytes, uploadedAt }) => ({ url, debugId, sizeBytes, uploadedAt }),
  )
}

/** Deletes a release's rows and every map blob no other release still uses. */
export async function deleteRelease(
  db: Db,
  blobs: BlobStore,
  organizationId: string,
  input: { release: unknown },
): Promise<{ release: string; files: number; blobs: number }> {
  const release = parseInput(Release, input.release)
  return db.transaction(async (tx) => {
    await lockOrganizationMaps(tx, organizationId)
    const deleted = await tx
      .delete(sourcemapFiles)
      .where(and(eq(sourcemapFiles.organizationId, organizationId), eq(sourcemapFiles.release, release)))
      .returning({ blobKey: sourcemapFiles.blobKey })
    if (deleted.length === 0) throw new NotFoundError(`No source maps for release ${release}`)
    const removed = await deleteUnreferencedBlobs(
      tx,
      blobs,
      organizationId,
      deleted.map((d) => d.blobKey),
    )
    return { release, files: deleted.length, blobs: removed }
  })
}

/** Deletes the given rows of one organization (the retention sweep), with their unused blobs. */
export async function deleteMapRows(
  db: Db,
  blobs: BlobStore,
  organizationId: string,
  ids: string[],
): Promise<{ files: number; blobs: number }> {
  return db.transaction(async (tx) => {
    await lockOrganizationMaps(tx, organizationId)
    const deleted = await tx
      .delete(sourcemapFiles)
      .where(and(eq(sourcemapFiles.organizationId, organizationId), inArray(sourcemapFiles.id, ids)))
      .returning({ blobKey: sourcemapFiles.blobKey })
    const removed = await deleteUnreferencedBlobs(
      tx,
      blobs,
      organizationId,
      deleted.map((d) => d.blobKey),
    )
    return { files: deleted.length, blobs: removed }
  })
}

/** The maps of several releases in one query (the settings page), by release then address. */
export async function listFilesOfReleases(
  db: DbOrTx,
  organizationId: string,
  releases: string[],
): Promise<Map<string, ReleaseFile[]>> {
  const byRelease = new Map<string, ReleaseFile[]>(releases.map((r) => [r, []]))
  if (releases.length === 0) return byRelease
  const rows = await db
    .select({
      release: sourcemapFiles.release,
      url: sourcemapFiles.url,
      debugId: sourcemapFiles.debugId,
      sizeBytes: sourcemapFiles.sizeBytes,
      uploadedAt: sourcemapFiles.uploadedAt,
    })
    .from(sourcemapFiles)
    .where(and(eq(sourcemapFiles.organizationId, organizationId), inArray(sourcemapFiles.release, releases)))
    .orderBy(asc(sourcemapFiles.release), asc(sourcemapFiles.url))
    .limit(RELEASE_FILES_PAGE.max * 10)
  for (const { release, ...file } of rows) byRelease.get(release)?.push(file)
  return byRelease
}
