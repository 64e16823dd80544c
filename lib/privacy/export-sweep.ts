import { and, eq, isNotNull, lte, or } from 'drizzle-orm'
import type { DbOrTx } from '@/db/client'
import { dataExports } from '@/db/schema'
import type { BlobStore } from '@/lib/storage/types'
import { exportFolder } from './export-file'
import { openPerson, type PersonRef } from './person'

const CHUNK = 100

/**
 * Deletes what expired exports held (docs/privacy.md#exports): the file's parts, its wrapped
 * data key (so a copy of a part elsewhere cannot be opened either) and the sealed person.
 * The row stays with its status, counts and times, so a late fetch says "expired".
 */
export async function sweepExpiredExports(
  db: DbOrTx,
  blobs: BlobStore,
  now = new Date(),
): Promise<{ exports: number; blobs: number }> {
  let exports = 0
  let deletedBlobs = 0
  while (true) {
    const rows = await db
      .select({ id: dataExports.id, organizationId: dataExports.organizationId })
      .from(dataExports)
      .where(
        and(
          lte(dataExports.expiresAt, now),
          or(
            isNotNull(dataExports.personSealed),
            isNotNull(dataExports.wrappedKey),
            isNotNull(dataExports.blobKey),
          ),
        ),
      )
      .limit(CHUNK)
    for (const row of rows) {
      // Listed rather than counted from the row: a failed attempt may have left parts too.
      const keys = await blobs.list(exportFolder(row.organizationId, row.id))
      await blobs.delete(keys)
      deletedBlobs += keys.length
      await db
        .update(dataExports)
        .set({ personSealed: null, wrappedKey: null, kekId: null, blobKey: null })
        .where(and(eq(dataExports.id, row.id), eq(dataExports.organizationId, row.organizationId)))
      exports++
    }
    if (rows.length < CHUNK) return { exports, blobs: deletedBlobs }
  }
}

/**
 * Erasure reaches exports too (docs/privacy.md#erasure): every unexpired export naming one of
 * the erased person's identifiers (any kind the erased sessions carried) loses its file, key
 * and sealed person at once, as if it had expired.
 */
export async function deleteExportsNaming(
  db: DbOrTx,
  blobs: BlobStore,
  organizationId: string,
  people: PersonRef[],
): Promise<number> {
  if (people.length === 0) return 0
  const named = new Set(people.map((p) => personKey(p)))
  const rows = await db
    .select({
      id: dataExports.id,
      personKind: dataExports.personKind,
      personSealed: dataExports.personSealed,
    })
    .from(dataExports)
    .where(and(eq(dataExports.organizationId, organizationId), isNotNull(dataExports.personSealed)))
  let deleted = 0
  for (const row of rows) {
    if (!row.personSealed || !named.has(personKey(openPerson(row.personKind, row.personSealed)))) continue
    await blobs.delete(await blobs.list(exportFolder(organizationId, row.id)))
    await db
      .update(dataExports)
      .set({ personSealed: null, wrappedKey: null, kekId: null, blobKey: null, expiresAt: new Date() })
      .where(and(eq(dataExports.id, row.id), eq(dataExports.organizationId, organizationId)))
    deleted++
  }
  return deleted
}

// E-mail addresses match in any case, as the sessions filter and erasure match them.
const personKey = (person: PersonRef) =>
  `${person.kind}\n${person.kind === 'email' ? person.value.toLowerCase() : person.value}`
