import { createHash, randomBytes } from 'node:crypto'
import { and, eq, inArray, ne } from 'drizzle-orm'
import { LRUCache } from 'lru-cache'
import type { DbOrTx } from '@/db/client'
import { sessionDataKeys } from '@/db/schema'
import { type Config, getConfig } from '@/lib/config'
import { deriveKey } from '@/lib/crypto/keys'
import { openTextBytes, sealText } from '@/lib/crypto/sealed'

/**
 * Envelope encryption of recorded data (docs/privacy.md#encryption): each session's batches
 * are sealed with a random data key of its own; the database holds that key wrapped under a
 * key-encryption key (KEK) the operator configures. Deleting a session's key row makes every
 * copy of its batches unreadable — backups of the blob store, S3 object versions, a file
 * someone copied — while a KEK alone reads nothing.
 */

export interface KeyEncryptionKey {
  id: string
  key: Buffer
}

/** The configured KEKs, the active (first) one first; the AUTH_SECRET-derived one always last. */
export function keyEncryptionKeys(
  config: Pick<Config, 'authSecret' | 'dataEncryptionKeys'> = getConfig(),
): KeyEncryptionKey[] {
  const derived = deriveKey('session-data-kek-v1', config.authSecret)
  // The id names which secret it came from without revealing it, so a changed AUTH_SECRET is
  // reported as "key auth-… is not configured" instead of as corrupt data.
  const derivedKek = {
    id: `auth-${createHash('sha256').update(derived).digest('hex').slice(0, 8)}`,
    key: derived,
  }
  return [...config.dataEncryptionKeys, derivedKek]
}

export class MissingKeyEncryptionKeyError extends Error {
  override name = 'MissingKeyEncryptionKeyError'
  constructor(readonly kekId: string) {
    super(
      `A session data key is wrapped under key-encryption key ${kekId}, which is not configured: add it to DATA_ENCRYPTION_KEYS (docs/privacy.md#key-rotation)`,
    )
  }
}

export function wrapDataKey(
  dataKey: Uint8Array,
  keks = keyEncryptionKeys(),
): { wrappedKey: string; kekId: string } {
  const active = keks[0]!
  return { wrappedKey: sealText(dataKey, active.key), kekId: active.id }
}

export function unwrapDataKey(wrappedKey: string, kekId: string, keks = keyEncryptionKeys()): Buffer {
  const kek = keks.find((k) => k.id === kekId)
  if (!kek) throw new MissingKeyEncryptionKeyError(kekId)
  return openTextBytes(wrappedKey, kek.key)
}

export function newDataKey(): Buffer {
  return randomBytes(32)
}

// Ingest seals every batch of a session with the same key: most batches find it here instead
// of in the database. Short-lived so that a key erased on another instance stops being used soon.
// One per process, on globalThis: ingest (a Pages Router route) and erasure (jobs) run in
// different Next bundles, and an erasure must clear the very cache ingest reads.
const writeKeysHolder = globalThis as typeof globalThis & { __serviceWriteKeys?: LRUCache<string, Buffer> }
writeKeysHolder.__serviceWriteKeys ??= new LRUCache<string, Buffer>({ max: 20_000, ttl: 120_000 })
const writeKeys = writeKeysHolder.__serviceWriteKeys
const cacheKey = (organizationId: string, externalId: string) => `${organizationId}\n${externalId}`

/**
 * The key new batches of a session are sealed with: the stored one, or a new one stored now.
 * Concurrent first batches (two instances, two tabs) agree on one key through the primary key.
 */
export async function sessionKeyForWrite(
  db: DbOrTx,
  organizationId: string,
  externalId: string,
): Promise<Buffer> {
  const cached = writeKeys.get(cacheKey(organizationId, externalId))
  if (cached) return cached
  const fresh = newDataKey()
  const keks = keyEncryptionKeys()
  const [inserted] = await db
    .insert(sessionDataKeys)
    .values({ organizationId, externalId, ...wrapDataKey(fresh, keks) })
    .onConflictDoNothing()
    .returning({ externalId: sessionDataKeys.externalId })
  let key = fresh
  if (!inserted) {
    const existing = await sessionKeysForRead(db, organizationId, [externalId])
    const stored = existing.get(externalId)
    if (!stored) throw new Error('session data key vanished while it was being created')
    key = stored
  }
  writeKeys.set(cacheKey(organizationId, externalId), key)
  return key
}

/** The data keys of sessions (by the recorder's session id); an erased session has none. */
export async function sessionKeysForRead(
  db: DbOrTx,
  organizationId: string,
  externalIds: string[],
): Promise<Map<string, Buffer>> {
  const keys = new Map<string, Buffer>()
  if (externalIds.length === 0) return keys
  const rows = await db
    .select({
      externalId: sessionDataKeys.externalId,
      wrappedKey: sessionDataKeys.wrappedKey,
      kekId: sessionDataKeys.kekId,
    })
    .from(sessionDataKeys)
    .where(
      and(
        eq(sessionDataKeys.organizationId, organizationId),
        inArray(sessionDataKeys.externalId, externalIds),
      ),
    )
  const keks = keyEncryptionKeys()
  for (const row of rows) keys.set(row.externalId, unwrapDataKey(row.wrappedKey, row.kekId, keks))
  return keys
}

/**
 * Crypto-shredding: deletes sessions' data keys, after which their sealed batches cannot be
 * read by anyone. Call it when the sessions' rows go (retention, deletion, erasure).
 */
export async function forgetSessionKeys(
  db: DbOrTx,
  organizationId: string,
  externalIds: string[],
): Promise<number> {
  if (externalIds.length === 0) return 0
  for (const externalId of externalIds) writeKeys.delete(cacheKey(organizationId, externalId))
  const deleted = await db
    .delete(sessionDataKeys)
    .where(
      and(
        eq(sessionDataKeys.organizationId, organizationId),
        inArray(sessionDataKeys.externalId, externalIds),
      ),
    )
    .returning({ externalId: sessionDataKeys.externalId })
  return deleted.length
}

/**
 * Key rotation (docs/privacy.md#key-rotation): re-wraps every data key not wrapped under the
 * active KEK, a chunk at a time; afterwards the old KEK can be removed from the configuration.
 * The sealed batches themselves are not touched.
 */
export async function rewrapSessionKeys(
  db: DbOrTx,
  options: { chunk?: number } = {},
): Promise<{ rewrapped: number }> {
  const keks = keyEncryptionKeys()
  const active = keks[0]!
  const chunk = options.chunk ?? 500
  let rewrapped = 0
  while (true) {
    const rows = await db
      .select()
      .from(sessionDataKeys)
      .where(ne(sessionDataKeys.kekId, active.id))
      .limit(chunk)
    if (rows.length === 0) break
    for (const row of rows) {
      const wrapped = wrapDataKey(unwrapDataKey(row.wrappedKey, row.kekId, keks), keks)
      await db
        .update(sessionDataKeys)
        .set(wrapped)
        .where(
          and(
            eq(sessionDataKeys.organizationId, row.organizationId),
            eq(sessionDataKeys.externalId, row.externalId),
            eq(sessionDataKeys.kekId, row.kekId),
          ),
        )
      rewrapped++
    }
  }
  return { rewrapped }
}

/**
 * Gives a session a new data key (re-masking re-seals a session's batches under it, so the
 * old key, and with it every earlier copy of the unmasked batches, can be forgotten).
 */
export async function replaceSessionKey(
  db: DbOrTx,
  organizationId: string,
  externalId: string,
  dataKey: Uint8Array,
): Promise<void> {
  const wrapped = wrapDataKey(dataKey)
  await db
    .insert(sessionDataKeys)
    .values({ organizationId, externalId, ...wrapped })
    .onConflictDoUpdate({
      target: [sessionDataKeys.organizationId, sessionDataKeys.externalId],
      set: wrapped,
    })
  writeKeys.delete(cacheKey(organizationId, externalId))
}

/** Forgets every cached write key (tests that erase and then record the same session again). */
export function clearSessionKeyCache(): void {
  writeKeys.clear()
}
