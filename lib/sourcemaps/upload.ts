import { and, eq, inArray, sql } from 'drizzle-orm'
import { z } from 'zod'
import type { Db } from '@/db/client'
import { sourcemapFiles } from '@/db/schema'
import { getSessionAnalysis, type SessionAnalysis } from '@/lib/analysis-worker/session-analysis'
import { InvalidInputError } from '@/lib/errors'
import { MAX_RELEASE_LENGTH } from '@/lib/ingest/schema'
import { getOrganization } from '@/lib/orgs/get-organization'
import type { BlobStore } from '@/lib/storage'
import { readTrailingComments } from '@/lib/symbolication/comments'
import { uploadAddress } from '@/lib/symbolication/map-address'
import { isStorableText, NOT_STORABLE, parseInput } from '@/lib/validation'
import { sourcemapBlobKeyOfDigest } from './blob-key'
import { checkMapsInWorker } from './check-maps'
import { readUploadFiles, type UploadPart } from './files'
import { SOURCEMAP_LIMITS } from './limits'
import { pairMaps } from './pairing'
import { deleteUnreferencedBlobs, lockOrganizationMaps } from './references'

/** The same bounds as the recorder's `metadata.release`, which frames are matched by exactly. */
export const Release = z
  .string({
    error: 'Missing release: send the build it belongs to (a commit, a version) as the field release',
  })
  .min(1, 'Missing release: send the build it belongs to (a commit, a version) as the field release')
  .max(MAX_RELEASE_LENGTH, `release must be at most ${MAX_RELEASE_LENGTH} characters`)
  .refine(isStorableText, `release ${NOT_STORABLE}`)

const URL_PREFIX_PROBLEM =
  'urlPrefix must be an http(s) URL without query or fragment, such as https://cdn.example.com/assets'

function parseUrlPrefix(value: unknown): string | null {
  if (value === undefined || value === null || value === '') return null
  if (
    typeof value !== 'string' ||
    value.length > SOURCEMAP_LIMITS.maxUrlPrefixLength ||
    !isStorableText(value)
  )
    throw new InvalidInputError(URL_PREFIX_PROBLEM)
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new InvalidInputError(URL_PREFIX_PROBLEM)
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || value.includes('?') || value.includes('#'))
    throw new InvalidInputError(URL_PREFIX_PROBLEM)
  return value
}

export interface UploadInput {
  organizationId: string
  release: unknown
  urlPrefix?: unknown
  files: UploadPart[]
}

export interface StoredMap {
  /** The minified file's address (docs/source-maps.md, "Addresses"). */
  url: string
  debugId: string | null
  sizeBytes: number
}

export interface UploadResult {
  release: string
  files: StoredMap[]
}

export interface UploadDeps {
  /** The worker pool the maps are checked in, and its budget; the process-wide one by default. */
  analysis?: SessionAnalysis
}

/**
 * Stores the source maps of one release (docs/source-maps.md). Everything is checked before
 * anything is written: a refusal stores nothing. Each map goes to blob storage under its
 * content hash; its row, keyed by release and address, replaces an earlier upload's. Minified
 * files only pair maps and give debug IDs; they are not stored. Nothing heavy runs on this
 * thread: maps are parsed and hashed in an analysis worker, minified files only have their
 * tails read, and `.gz` parts are inflated on libuv's pool.
 */
export async function uploadSourcemaps(
  db: Db,
  blobs: BlobStore,
  input: UploadInput,
  deps: UploadDeps = {},
): Promise<UploadResult> {
  const release = parseInput(Release, input.release)
  const urlPrefix = parseUrlPrefix(input.urlPrefix)
  const files = await readUploadFiles(input.files)
  const maps = files.filter((f) => f.path.endsWith('.map'))
  if (maps.length === 0)
    throw new InvalidInputError('No source maps: send at least one file whose name ends in .map')
  const minified = new Map(
    files.filter((f) => !f.path.endsWith('.map')).map((f) => [f.path, readTrailingComments(f.bytes)]),
  )
  const pairs = pairMaps(
    maps.map((m) => m.path),
    [...minified].map(([path, m]) => ({ path, sourceMappingUrl: m.sourceMappingUrl })),
  )
  const planned: {
    url: string
    debugId: string | null
    bytes: Buffer
    blobKey: string
    heapEstimateBytes: number
  }[] = []
  // In the maps' order, each checked before the next is parsed: the first refusal is the same
  // as when this ran here, and stops the worker's work on the rest.
  for await (const map of checkMapsInWorker(deps.analysis ?? getSessionAnalysis(), maps)) {
    const target = pairs.get(map.path) ?? map.path.slice(0, -'.map'.length)
    const fromMap = map.debugId
    const fromFile = minified.get(target)?.debugId ?? null
    if (fromMap && fromFile && fromMap !== fromFile)
      throw new InvalidInputError(
        `${map.path}: its debugId ${fromMap} differs from the //# debugId=${fromFile} of ${target}; upload the map built with that file`,
      )
    const url = uploadAddress(target, urlPrefix)
    if (url.length > SOURCEMAP_LIMITS.maxAddressLength)
      throw new InvalidInputError(
        `${target}: its address is longer than ${SOURCEMAP_LIMITS.maxAddressLength} characters`,
      )
    planned.push({
      url,
      debugId: fromMap ?? fromFile,
      bytes: map.bytes,
      heapEstimateBytes: map.heapEstimateBytes,
      blobKey: sourcemapBlobKeyOfDigest(input.organizationId, map.sha256),
    })
  }
  await getOrganization(db, input.organizationId)

  await db.transaction(async (tx) => {
    await lockOrganizationMaps(tx, input.organizationId)
    const urls = planned.map((p) => p.url)
    const replaced = await tx
      .select({ blobKey: sourcemapFiles.blobKey })
      .from(sourcemapFiles)
      .where(
        and(
          eq(sourcemapFiles.organizationId, input.organizationId),
          eq(sourcemapFiles.release, release),
          inArray(sourcemapFiles.url, urls),
        ),
      )
    await tx
      .insert(sourcemapFiles)
      .values(
        planned.map((p) => ({
          organizationId: input.organizationId,
          release,
          url: p.url,
          debugId: p.debugId,
          blobKey: p.blobKey,
          sizeBytes: p.bytes.byteLength,
          heapEstimateBytes: p.heapEstimateBytes,
        })),
      )
      .onConflictDoUpdate({
        target: [sourcemapFiles.organizationId, sourcemapFiles.release, sourcemapFiles.url],
        set: {
          debugId: sql`excluded.debug_id`,
          blobKey: sql`excluded.blob_key`,
          sizeBytes: sql`excluded.size_bytes`,
          heapEstimateBytes: sql`excluded.heap_estimate_bytes`,
          uploadedAt: sql`now()`,
          lastUsedAt: sql`now()`,
        },
      })
    // Written under the lock, after the rows: a failed write rolls the rows back, and no
    // concurrent delete can remove a blob between its write and its row's commit.
    for (const p of planned) await blobs.put(p.blobKey, p.bytes, { contentType: 'application/json' })
    await deleteUnreferencedBlobs(
      tx,
      blobs,
      input.organizationId,
      replaced.map((r) => r.blobKey),
    )
  })
  return {
    release,
    files: planned.map((p) => ({ url: p.url, debugId: p.debugId, sizeBytes: p.bytes.byteLength })),
  }
}
