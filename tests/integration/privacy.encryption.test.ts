/**
 * Envelope encryption of recorded batches (docs/privacy.md#encryption): every session's
 * batches are sealed with a data key of its own, wrapped under the operator's key; deleting
 * the key makes any copy of the bytes unreadable; rotation re-wraps keys without touching blobs.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { and, eq } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { replayBatches, replaySessions, sessionDataKeys } from '@/db/schema'
import { getConfig, parseConfig, setConfigForTests } from '@/lib/config'
import { createKey } from '@/lib/credentials/create-key'
import { isSealedBytes, openBytes } from '@/lib/crypto/sealed'
import { useDatabase } from '@/lib/db'
import { createOrganization } from '@/lib/orgs/create-organization'
import { deleteSessions } from '@/lib/retention/delete-sessions'
import {
  clearSessionKeyCache,
  keyEncryptionKeys,
  MissingKeyEncryptionKeyError,
  rewrapSessionKeys,
  sessionKeyForWrite,
  sessionKeysForRead,
} from '@/lib/sealing/data-keys'
import { readSessionEvents, sessionBatches } from '@/lib/sessions/read-events'
import { createBlobStore, setBlobStoreForTests } from '@/lib/storage'
import type { BlobStore } from '@/lib/storage/types'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { ingestSession, loadRecording } from '../helpers/pipeline'

let database: TestDatabase
let blobs: BlobStore
let organizationId: string
let ingestKey: string
const original = getConfig()
const events = loadRecording('clean').events

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  blobs = createBlobStore({ kind: 'local', root: mkdtempSync(path.join(tmpdir(), 'sealed-')) })
  setBlobStoreForTests(blobs)
  organizationId = (await createOrganization(database.db, { name: 'Sealed' })).id
  ingestKey = (await createKey(database.db, { organizationId, type: 'ingest' })).key
})

afterEach(() => {
  setConfigForTests(original)
  clearSessionKeyCache()
})

afterAll(async () => {
  setConfigForTests(undefined)
  setBlobStoreForTests(undefined)
  useDatabase(undefined)
  await database.close()
})

async function storedSession(externalId: string) {
  const [session] = await database.db
    .select()
    .from(replaySessions)
    .where(and(eq(replaySessions.organizationId, organizationId), eq(replaySessions.externalId, externalId)))
  const rows = await database.db.select().from(replayBatches).where(eq(replayBatches.sessionId, session!.id))
  return { session: session!, rows }
}

const withKeys = (value: string) =>
  setConfigForTests(parseConfig({ ...process.env, DATA_ENCRYPTION_KEYS: value }))
const newKek = () => randomBytes(32).toString('base64')

describe('sealed batches', () => {
  it('seals each session with its own key and reads the events back as recorded', async () => {
    await ingestSession(ingestKey, 'sealed-one', events, { perBatch: 40 })
    await ingestSession(ingestKey, 'sealed-two', events, { perBatch: 40 })
    const one = await storedSession('sealed-one')
    const two = await storedSession('sealed-two')
    const keys = await sessionKeysForRead(database.db, organizationId, ['sealed-one', 'sealed-two'])
    expect(keys.get('sealed-one')!.equals(keys.get('sealed-two')!)).toBe(false)
    expect(two.rows.length).toBeGreaterThan(0)
    for (const row of one.rows) {
      const bytes = (await blobs.get(row.blobKey))!
      expect(isSealedBytes(bytes)).toBe(true)
      expect(() => openBytes(bytes, keys.get('sealed-two')!)).toThrow()
    }
    const read = []
    for await (const event of readSessionEvents(blobs, await sessionBatches(database.db, one.session.id)))
      read.push(event)
    expect(read).toEqual(events)
  })

  it('agrees on one key when two writers create it at once', async () => {
    const [a, b] = await Promise.all([
      sessionKeyForWrite(database.db, organizationId, 'raced'),
      (async () => {
        clearSessionKeyCache()
        return sessionKeyForWrite(database.db, organizationId, 'raced')
      })(),
    ])
    expect(a.equals(b)).toBe(true)
  })

  it('deleting a session forgets its key: a copy of its bytes taken before stays unreadable', async () => {
    await ingestSession(ingestKey, 'shredded', events, { perBatch: 40 })
    const { session, rows } = await storedSession('shredded')
    const copy = (await blobs.get(rows[0]!.blobKey))!
    const key = (await sessionKeysForRead(database.db, organizationId, ['shredded'])).get('shredded')!
    expect(() => openBytes(copy, key)).not.toThrow()
    await deleteSessions(database.db, blobs, { organizationId, sessionIds: [session.id] })
    expect((await sessionKeysForRead(database.db, organizationId, ['shredded'])).size).toBe(0)
    const left = await database.db
      .select()
      .from(sessionDataKeys)
      .where(eq(sessionDataKeys.organizationId, organizationId))
    for (const row of left) expect(row.externalId).not.toBe('shredded')
    expect(await blobs.get(rows[0]!.blobKey)).toBeNull()
    // Whatever key the database still holds opens nothing of the erased session's copy.
    const remaining = await sessionKeysForRead(
      database.db,
      organizationId,
      left.map((row) => row.externalId),
    )
    for (const other of remaining.values()) expect(() => openBytes(copy, other)).toThrow()
  })
})

describe('key-encryption keys', () => {
  it('rotation re-wraps every data key under the active KEK; the old one can then be removed', async () => {
    await ingestSession(ingestKey, 'rotated', events, { perBatch: 40 })
    const { session } = await storedSession('rotated')
    const derivedId = keyEncryptionKeys()[0]!.id
    const first = newKek()
    withKeys(`first:${first}`)
    const { rewrapped } = await rewrapSessionKeys(database.db, { chunk: 2 })
    expect(rewrapped).toBeGreaterThan(0)
    const kekIds = new Set((await database.db.select().from(sessionDataKeys)).map((row) => row.kekId))
    expect([...kekIds]).toEqual(['first'])
    expect(derivedId).toMatch(/^auth-[0-9a-f]{8}$/)

    // Rotate again to a second key with the first still listed, then drop the first.
    const second = newKek()
    withKeys(`second:${second},first:${first}`)
    await rewrapSessionKeys(database.db)
    withKeys(`second:${second}`)
    const read = []
    for await (const event of readSessionEvents(blobs, await sessionBatches(database.db, session.id)))
      read.push(event)
    expect(read).toHaveLength(events.length)
  })

  it('a key wrapped under a KEK that is no longer configured is named in the error', async () => {
    withKeys(`gone:${newKek()}`)
    await sessionKeyForWrite(database.db, organizationId, 'orphaned')
    withKeys(`other:${newKek()}`)
    await expect(sessionKeysForRead(database.db, organizationId, ['orphaned'])).rejects.toBeInstanceOf(
      MissingKeyEncryptionKeyError,
    )
    await database.db.delete(sessionDataKeys).where(eq(sessionDataKeys.externalId, 'orphaned'))
  })

  it('refuses malformed DATA_ENCRYPTION_KEYS at start-up', () => {
    for (const bad of ['nocolon', 'a:short', `a:${newKek()},a:${newKek()}`, `bad id:${newKek()}`])
      expect(() => parseConfig({ ...process.env, DATA_ENCRYPTION_KEYS: bad })).toThrow(/DATA_ENCRYPTION_KEYS/)
  })
})
