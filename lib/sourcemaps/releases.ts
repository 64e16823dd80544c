import { and, asc, count, desc, eq, inArray, max, sum } from 'drizzle-orm'
import type { Db, DbOrTx } from '@/db/client'
import { sourcemapFiles } from '@/db/schema'
import { NotFoundError } from '@/lib/errors'
import type { BlobStore } from '@/lib/storage'
import { parseInput } from '@/lib/validation'
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

/** The organization's releases with source maps, most recently uploaded first. */
export async function listReleases(
  db: DbOrTx,
  organizationId: string,
  options: { limit?: number } = {},
): Promise<ReleaseSummary[]> {
  const lastUploadedAt = max(sourcemapFiles.uploadedAt)
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
    .orderBy(desc(lastUploadedAt), asc(sourcemapFiles.release))
    .limit(options.limit ?? RELEASES_PAGE.default)
  return rows.map((r) => ({ ...r, lastUploadedAt: r.lastUploadedAt ?? new Date(0) }))
}

/** The maps of one release, by address; a release without any is not found. */
export async function listReleaseFiles(
  db: DbOrTx,
  organizationId: string,
  input: { release: unknown; limit?: number },
): Promise<ReleaseFile[]> {
  const release = parseInput(Release, input.release)
  const rows = await db
    .select({
      url: sourcemapFiles.url,
      debugId: sourcemapFiles.debugId,
      sizeBytes: sourcemapFiles.sizeBytes,
      uploadedAt: sourcemapFiles.uploadedAt,
    })
    .from(sourcemapFiles)
    .where(and(eq(sourcemapFiles.organizationId, organizationId), eq(sourcemapFiles.release, release)))
    .orderBy(asc(sourcemapFiles.url))
    .limit(input.limit ?? RELEASE_FILES_PAGE.default)
  if (rows.length === 0) throw new NotFoundError(`No source maps for release ${release}`)
  return rows
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
