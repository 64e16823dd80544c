import { randomBytes } from 'node:crypto'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { replaySessions } from '@/db/schema'
import { createKey } from '@/lib/credentials/create-key'
import { useDatabase } from '@/lib/db'
import { ReplayBatch } from '@/lib/ingest/schema'
import { sessionFields } from '@/lib/ingest/session-fields'
import { storeBatchInTransaction } from '@/lib/ingest/store-batch-transaction'
import type { JobsEngine } from '@/lib/jobs/types'
import { createOrganization } from '@/lib/orgs/create-organization'
import { makeBatch } from '../fixtures/replay-batch'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { sendBatch } from '../helpers/ingest'

/**
 * A session's release and debug IDs (docs/source-maps.md), on both ways ingest stores a batch:
 * the one statement (through the route) and the transaction it falls back to. Both must leave
 * the same row: the first release wins, debug IDs merge up to 100 URLs, and a batch without
 * them changes nothing.
 */

let database: TestDatabase
let organizationId: string
let key: string

beforeAll(async () => {
  database = await createTestDatabase()
  useDatabase(database)
  organizationId = (await createOrganization(database.db, { name: 'Releases' })).id
  key = (await createKey(database.db, { organizationId, type: 'ingest' })).key
})
afterAll(async () => {
  useDatabase(undefined)
  await database.close()
})

const id = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`
const url = (n: number) => `https://shop.example.com/assets/chunk-${n}.js`

type Metadata = { release?: string; debugIds?: Record<string, string> } | null

function batch(sessionId: string, sequence: number, metadata: Metadata) {
  const body = makeBatch({ sessionId, sequence, events: 3 })
  return {
    ...body,
    metadata: metadata === null ? undefined : { ...body.metadata, ...metadata },
  }
}

// Only `send` could be called, for a final batch's event; these batches are normal.
const noJobs: JobsEngine = {
  kind: 'in-process',
  send: async () => {},
  start: async () => {},
  stop: async () => {},
}

const paths = {
  async statement(body: ReturnType<typeof batch>) {
    expect((await sendBatch(body, { key })).status).toBe(200)
  },
  async transaction(body: ReturnType<typeof batch>) {
    const parsed = ReplayBatch.parse(body)
    const events = parsed.replay.events
    const lastTimestamp = Math.floor(events[events.length - 1]!.timestamp)
    await storeBatchInTransaction(database.db, noJobs, {
      organizationId,
      batch: parsed,
      fields: sessionFields(parsed, lastTimestamp),
      firstTimestamp: Math.floor(events[0]!.timestamp),
      lastTimestamp,
      body: new Uint8Array(Buffer.from(JSON.stringify(body))),
      blobKey: `test/${randomBytes(8).toString('hex')}`,
    })
  },
}

async function sessionRow(externalId: string) {
  const [row] = await database.db
    .select({ release: replaySessions.release, debugIds: replaySessions.debugIds })
    .from(replaySessions)
    .where(eq(replaySessions.externalId, externalId))
  return row
}

describe.each(['statement', 'transaction'] as const)(
  'ingest on the %s path: release and debug IDs',
  (path) => {
    const store = paths[path]
    const fresh = () => `${path}-${randomBytes(6).toString('hex')}`

    it('leaves both null for batches without them, exactly as before', async () => {
      const sessionId = fresh()
      await store(batch(sessionId, 0, null))
      await store(batch(sessionId, 1, {}))
      expect(await sessionRow(sessionId)).toEqual({ release: null, debugIds: null })
    })

    it('keeps the first release a batch names and merges debug IDs, a later ID of a URL replacing it', async () => {
      const sessionId = fresh()
      await store(batch(sessionId, 0, null))
      await store(batch(sessionId, 1, { release: 'v1', debugIds: { [url(1)]: id(1) } }))
      expect(await sessionRow(sessionId)).toEqual({ release: 'v1', debugIds: { [url(1)]: id(1) } })
      await store(batch(sessionId, 2, { release: 'v2', debugIds: { [url(1)]: id(9), [url(2)]: id(2) } }))
      await store(batch(sessionId, 3, null))
      expect(await sessionRow(sessionId)).toEqual({
        release: 'v1',
        debugIds: { [url(1)]: id(9), [url(2)]: id(2) },
      })
    })

    it('creates a session with the release and debug IDs of its first batch', async () => {
      const sessionId = fresh()
      await store(batch(sessionId, 0, { release: 'abc123', debugIds: { [url(1)]: id(1) } }))
      expect(await sessionRow(sessionId)).toEqual({ release: 'abc123', debugIds: { [url(1)]: id(1) } })
    })

    it('holds at most 100 URLs: new ones beyond are left out, known ones still update', async () => {
      const sessionId = fresh()
      const hundred = Object.fromEntries(Array.from({ length: 99 }, (_, i) => [url(i), id(i)]))
      await store(batch(sessionId, 0, { debugIds: hundred }))
      // One place left: the first new URL in key order takes it.
      await store(
        batch(sessionId, 1, { debugIds: { [url(901)]: id(901), [url(900)]: id(900), [url(5)]: id(555) } }),
      )
      const row = await sessionRow(sessionId)
      expect(Object.keys(row!.debugIds!)).toHaveLength(100)
      expect(row!.debugIds![url(900)]).toBe(id(900))
      expect(row!.debugIds![url(901)]).toBeUndefined()
      expect(row!.debugIds![url(5)]).toBe(id(555))
    })
  },
)
